public import Foundation

extension FileStore {
    /// Deletes the temporary files that atomic writes of killed processes left in `folder`.
    ///
    /// ``write(_:to:permissions:durability:)`` writes `.<name>.<random>.tmp` beside the
    /// destination and renames it; a process killed before the rename leaves that file
    /// behind (the destination itself is never torn). Only such files older than `age`
    /// are removed, so writes in progress in other processes are not disturbed.
    ///
    /// ```swift
    /// try FileStore.removeLeftoverTemporaryFiles(in: documents)   // at launch
    /// ```
    ///
    /// - parameters:
    ///   - folder: The folder to clean (not its subfolders).
    ///   - age: The minimum age, in seconds since the file last changed (one hour by default).
    ///   - clock: Where "now" comes from.
    /// - returns: How many files were removed.
    @discardableResult
    public static func removeLeftoverTemporaryFiles(
        in folder: URL,
        olderThan age: TimeInterval = 3600,
        clock: any StashClock = SystemClock()
    ) throws -> Int {
        var removed = 0
        let cutoff = clock.now.addingTimeInterval(-age)
        for name in try list(folder) where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            let url = folder.appendingPathComponent(name)
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            guard let modified = attributes?[.modificationDate] as? Date, modified <= cutoff,
                  attributes?[.type] as? FileAttributeType == .typeRegular
            else { continue }
            try delete(url)
            removed += 1
        }
        return removed
    }
}
