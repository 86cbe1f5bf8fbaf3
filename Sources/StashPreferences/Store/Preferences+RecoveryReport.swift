public import Foundation

extension Preferences {
    /// What opening a damaged suite cut off. A store that opened cleanly has none.
    ///
    /// A crash of the process never damages the log (an acknowledged record is in the
    /// kernel's page cache before `set` returns). A power cut before ``Preferences/flush()``
    /// can leave a torn last record; a disk error can corrupt any byte. Every group of up to
    /// 16 records carries a checksum, and so do the file's header and each of its two
    /// commit slots: opening keeps every intact group (also those after a damaged one),
    /// names the keys of a damaged group's records when they are still readable, and keeps a
    /// damaged file aside (``movedAside``) before rewriting it. A report with
    /// `droppedBytes == 0` lost nothing.
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
        /// How many intact records were kept.
        public var keptRecords: Int
        /// Where in the file the (first) damage starts.
        public var damageOffset: Int
        /// Where the damaged file was kept, as it was, before the log was rewritten (a
        /// damaged header, damage followed by intact records, or a file that is not a
        /// preferences log at all).
        public var movedAside: URL?
        /// The keys of the damaged records that were dropped, when their key was still
        /// readable (the values were not trusted). A key may still have an older or a
        /// newer intact value.
        ///
        /// ```swift
        /// for key in prefs.recoveryReport?.damagedKeys ?? [] { logger.warning("preference \(key) may be lost") }
        /// ```
        public var damagedKeys: [String]
        /// What happened, in one sentence.
        public var reason: String

        public var description: String {
            var text = "\(reason) (kept \(keptRecords) records, dropped \(droppedBytes) bytes"
            if !damagedKeys.isEmpty { text += ", damaged keys: \(damagedKeys.joined(separator: ", "))" }
            if let movedAside { text += ", old file at \(movedAside.path)" }
            return text + ")"
        }

        func with(movedAside: URL?, reason: String) -> RecoveryReport {
            var report = self
            report.movedAside = movedAside
            report.reason = reason
            return report
        }
    }
}
