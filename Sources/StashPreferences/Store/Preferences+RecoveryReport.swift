import Foundation

extension Preferences {
    /// What opening a damaged suite cut off. A store that opened cleanly has none.
    ///
    /// A crash of the process never damages the log (an acknowledged record is in the
    /// kernel's page cache before `set` returns). A power cut before ``Preferences/flush()``
    /// can leave a torn last record; a disk error can corrupt one. Opening keeps every record
    /// before the first damaged one and reports the rest here.
    ///
    /// ```swift
    /// let prefs = try Preferences(suite: "settings")
    /// if let report = prefs.recoveryReport {
    ///     logger.warning("preferences recovered: \(report)")
    /// }
    /// ```
    public struct RecoveryReport: Sendable, Hashable, CustomStringConvertible {
        /// How many bytes of records were dropped (0 when a whole file was moved aside).
        public var droppedBytes: Int
        /// How many records before the damage were kept.
        public var keptRecords: Int
        /// Where in the file the damage starts.
        public var damageOffset: Int
        /// Where an unreadable file was moved to, when it was not a preferences log at all.
        public var movedAside: URL?
        /// What happened, in one sentence.
        public var reason: String

        public var description: String {
            var text = "\(reason) (kept \(keptRecords) records, dropped \(droppedBytes) bytes"
            if let movedAside { text += ", old file at \(movedAside.path)" }
            return text + ")"
        }
    }
}
