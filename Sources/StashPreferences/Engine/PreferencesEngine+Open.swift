import Foundation
import StashCore

extension PreferencesEngine {
    /// Opens the log at `url` and reads it into the index; the file lock is held.
    ///
    /// Never fails because of damage, and never deletes anything:
    /// - a torn or corrupt tail is cut off (every record before it is kept);
    /// - damaged records inside the log are skipped (the intact records after them are
    ///   kept) and the log is rewritten without them, its old file kept aside;
    /// - a damaged header (its checksum fails) is not trusted: the file is kept aside and
    ///   every intact record in it is salvaged into a fresh log;
    /// - a zero-length file is reported and an empty log started.
    ///
    /// Each is described in ``recovery``. Only a log truly written by a newer format (its
    /// header intact) is refused, untouched.
    func openLog(isReopen: Bool) throws {
        guard let url else { return }
        log?.close()
        log = nil
        if !isReopen { removeAbandonedCompactions(of: url) }
        let existed = FileStore.exists(url)
        let file = try LogFile(url: url)
        if file.mappedSize == 0 {
            try initialize(file, generation: 1, counter: 1)
            log = file
            resetIndex(end: LogFile.headerSize, counter: file.changeCounter)
            if existed {
                recovery = Preferences.RecoveryReport(
                    droppedBytes: 0, keptRecords: 0, damageOffset: 0, movedAside: nil, damagedKeys: [],
                    reason: "the file was empty (0 bytes, so it held no value); an empty log was started"
                )
            }
            return
        }
        let version = file.version
        let isVersion1 = file.hasMagic && version == FormatVersion1.version
        if !isVersion1, !(file.hasMagic && file.hasValidChecksum) {
            return try salvage(file, url: url, isReopen: isReopen)
        }
        if version > LogFile.version {
            file.close()
            throw StashError(
                .unsupportedVersion,
                "the log has format version \(version); this build reads versions 1 and \(LogFile.version)", path: url.path
            )
        }
        if file.isRetired {
            // A compaction crashed between retiring this file and renaming its successor
            // over it: this file is still the current one.
            file.setRetired(false)
        }
        log = file
        resetIndex(end: LogFile.headerSize, counter: file.changeCounter)
        let end = file.end
        let limit = max(LogFile.headerSize, min(end, file.mappedSize))
        guard let base = file.base else { return }
        reserveIndex(base, from: LogFile.headerSize, to: limit, version: version)
        let scan = LogScanner(version: version).scan(base, from: LogFile.headerSize, to: limit) { record, offset in
            apply(record.kind, key: record.key, value: record.value, expiry: record.expiry,
                  offset: offset, length: record.length, byOtherProcess: isReopen)
        }
        adopt(index: index, liveBytes: liveBytes, end: scan.end, counter: file.changeCounter)
        let truncated = max(0, end - file.mappedSize)
        guard !scan.damage.isEmpty || truncated > 0 || end < LogFile.headerSize else { return }

        let report = Preferences.RecoveryReport(
            droppedBytes: scan.damagedBytes + truncated, keptRecords: scan.kept,
            damageOffset: scan.damage.first?.lowerBound ?? scan.end, movedAside: nil, damagedKeys: scan.damagedKeys,
            reason: ""
        )
        if scan.hasDamageInside {
            // Intact records follow the damage: rewrite the log without it, old file aside.
            let aside = try keepAside(url)
            try compactLocked(reserving: 0)
            recovery = report.with(movedAside: aside, reason: "\(scan.damage.count) damaged record area(s) failed their checksums; the intact records around them were kept and the log rewritten")
            return
        }
        // Only the tail is damaged: cut it (zeroed, so that a later salvage cannot take it
        // for records) and keep everything before it.
        memset(base + scan.end, 0, limit - scan.end)
        file.commit(end: scan.end, changeCounter: file.changeCounter &+ 1)
        adopt(index: index, liveBytes: liveBytes, end: scan.end, counter: file.changeCounter)
        if durable { try file.sync(metadata: true) }
        recovery = report.with(
            movedAside: nil,
            reason: truncated > 0
                ? "the file ends before its last acknowledged record (truncated); the records after offset \(scan.end) were dropped"
                : "a record at offset \(scan.end) failed its checksum (a torn or corrupt write); it and the damaged bytes after it were dropped"
        )
    }

    /// Salvages a log whose header cannot be trusted: the file is kept aside as it is, its
    /// intact records (found by their own checksums) are written into a fresh log.
    private func salvage(_ file: LogFile, url: URL, isReopen: Bool) throws {
        log = file
        resetIndex(end: LogFile.headerSize, counter: 0)
        var scan = LogScanner.Result(end: LogFile.headerSize)
        if let base = file.base, file.mappedSize > LogFile.headerSize {
            // The version field may be the damaged one: try the current format, then 1.
            let versions = file.version == FormatVersion1.version ? [FormatVersion1.version] : [LogFile.version, FormatVersion1.version]
            for version in versions {
                resetIndex(end: LogFile.headerSize, counter: 0)
                reserveIndex(base, from: LogFile.headerSize, to: file.mappedSize, version: version)
                scan = LogScanner(version: version).scan(
                    base, from: LogFile.headerSize, to: file.mappedSize, ignoringZeroTail: true
                ) { record, offset in
                    apply(record.kind, key: record.key, value: record.value, expiry: record.expiry,
                          offset: offset, length: record.length, byOtherProcess: isReopen)
                }
                if scan.kept > 0 { break }
            }
        }
        let aside = try keepAside(url)
        try compactLocked(reserving: 0, reencoding: true)
        let isLog = scan.kept > 0 || file.hasMagic
        recovery = Preferences.RecoveryReport(
            droppedBytes: scan.damagedBytes, keptRecords: scan.kept,
            damageOffset: scan.damage.first?.lowerBound ?? 0, movedAside: aside, damagedKeys: scan.damagedKeys,
            reason: isLog
                ? "the log's header was damaged (its checksum failed); \(scan.kept) intact records were salvaged into a new log"
                : "the file is not a preferences log; it was moved aside and an empty log started"
        )
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
            droppedBytes: droppedBytes, keptRecords: index.count, damageOffset: offset, movedAside: nil, damagedKeys: [],
            reason: reason
        )
    }

    /// Copies the damaged file, as it is, to `<name>.corrupt-<timestamp>-<n>` before the log
    /// is rewritten, so that nothing is deleted. (A copy, not a link: the rewrite marks the
    /// old file retired for the processes that still map it.)
    private func keepAside(_ url: URL) throws -> URL {
        let stamp = Int(Date().timeIntervalSince1970)
        let aside = URL(fileURLWithPath: url.path + ".corrupt-\(stamp)-\(UInt16.random(in: 0...UInt16.max))")
        try FileStore.write(try FileStore.read(url), to: aside)
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
