import Foundation
import StashCore

extension PreferencesEngine {
    /// Opens the log at `url` and reads it into the index; the file lock is held.
    ///
    /// Never fails because of damage: a torn or corrupt tail is cut off (every record before
    /// it is kept), and a file that is not a log at all is moved aside and replaced by an
    /// empty one. Both are described in ``recovery``.
    func openLog(isReopen: Bool) throws {
        guard let url else { return }
        log?.close()
        log = nil
        if !isReopen { removeAbandonedCompactions(of: url) }
        var file = try LogFile(url: url)
        if file.mappedSize == 0 {
            try initialize(file, generation: 1, counter: 1)
        } else if !file.hasValidHeader {
            file.close()
            let aside = try moveAside(url)
            recovery = Preferences.RecoveryReport(
                droppedBytes: 0, keptRecords: 0, damageOffset: 0, movedAside: aside,
                reason: "the file is not a preferences log; it was moved aside and an empty log started"
            )
            file = try LogFile(url: url, exclusive: true)
            try initialize(file, generation: 1, counter: 1)
        } else if file.version > LogFile.version {
            file.close()
            throw StashError(.unsupportedVersion, "the log has format version \(file.version); this build reads \(LogFile.version)", path: url.path)
        }
        if file.isRetired {
            // A compaction crashed between retiring this file and renaming its successor
            // over it: this file is still the current one.
            file.isRetired = false
            file.changeCounter &+= 1
        }
        log = file
        resetIndex(end: LogFile.headerSize, counter: file.changeCounter)
        let end = file.end
        let limit = min(end, file.mappedSize)
        var kept = 0
        var offset = LogFile.headerSize
        if let base = file.base {
            while offset < limit, let record = Record.read(base, at: offset, limit: limit) {
                apply(record.kind, key: record.key, value: record.value, expiry: record.expiry,
                      offset: offset, length: record.length, byOtherProcess: isReopen)
                offset += record.length
                kept += 1
            }
        }
        adopt(index: index, liveBytes: liveBytes, end: offset, counter: file.changeCounter)
        if offset < end || end < LogFile.headerSize {
            file.end = offset
            file.changeCounter &+= 1
            adopt(index: index, liveBytes: liveBytes, end: offset, counter: file.changeCounter)
            if durable { try file.sync(metadata: true) }
            recovery = Preferences.RecoveryReport(
                droppedBytes: max(0, end - offset), keptRecords: kept, damageOffset: offset, movedAside: nil,
                reason: end > file.mappedSize
                    ? "the file ends before its last acknowledged record (truncated); the records after offset \(offset) were dropped"
                    : "a record at offset \(offset) failed its checksum (a torn or corrupt write); it and everything after it were dropped"
            )
        }
    }

    /// Writes the header of a brand-new log and makes its creation durable.
    private func initialize(_ file: LogFile, generation: UInt64, counter: UInt64) throws {
        try file.grow(to: LogFile.minimumSize)
        file.writeHeader(generation: generation, changeCounter: counter)
        try file.sync(metadata: true)
        FileStore.syncFolder(file.url.deletingLastPathComponent().path)
    }

    /// Notes damage found while catching up with another process.
    func recordDamage(droppedBytes: Int, at offset: Int, reason: String) {
        recovery = Preferences.RecoveryReport(
            droppedBytes: droppedBytes, keptRecords: index.count, damageOffset: offset, movedAside: nil, reason: reason
        )
    }

    /// Renames an unreadable file to `<name>.corrupt-<timestamp>` so that nothing is deleted.
    private func moveAside(_ url: URL) throws -> URL {
        let stamp = Int(Date().timeIntervalSince1970)
        let aside = URL(fileURLWithPath: url.path + ".corrupt-\(stamp)-\(UInt16.random(in: 0...UInt16.max))")
        try FileStore.move(url, to: aside)
        return aside
    }

    /// Deletes the temporary files of compactions that a crash interrupted. The file lock is
    /// held, so no compaction is running.
    private func removeAbandonedCompactions(of url: URL) {
        let folder = url.deletingLastPathComponent()
        let prefix = url.lastPathComponent + ".compact-"
        guard let names = try? FileStore.list(folder) else { return }
        for name in names where name.hasPrefix(prefix) {
            try? FileStore.delete(folder.appendingPathComponent(name))
        }
    }
}
