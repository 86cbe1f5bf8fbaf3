import Foundation
import StashCore

extension PreferencesEngine {
    /// Opens the log at `url` and reads it into the index; the file lock is held.
    ///
    /// Never fails because of damage, and never deletes anything:
    /// - a torn or corrupt tail is cut off (every group before it is kept);
    /// - damaged groups (records, in formats 1 and 2) inside the log are skipped (the intact
    ///   ones after them are kept) and the log is rewritten without them, its old file kept
    ///   aside;
    /// - a last commit that does not match the bytes on disk (a power cut between the
    ///   header's page and a record's) gives way to the commit before it;
    /// - a damaged header (its checksums fail) is not trusted: the file is kept aside and
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
        // Version 1 headers have no checksum (their readers left the field zero).
        let isVersion1 = file.hasMagic && version == FormatVersion1.version
            && (file.hasValidChecksum || file.storedChecksum == 0)
        if !isVersion1, !(file.hasMagic && file.hasValidChecksum) {
            return try salvage(file, url: url)
        }
        if version > LogFile.version {
            file.close()
            throw StashError(
                .unsupportedVersion,
                "the log has format version \(version); this build reads versions 1 to \(LogFile.version)", path: url.path
            )
        }
        guard file.loadCommit() else { return try salvage(file, url: url) }
        let lostCommit = repairUnsealedCommit(file)
        if file.isRetired {
            // A compaction crashed between retiring this file and renaming its successor
            // over it: this file is still the current one.
            file.setRetired(false)
        }
        log = file
        guard let base = file.base else { return }
        let start = LogFile.recordsStart(version: version)
        let newest = file.current
        var scan = read(file, base, commit: newest)
        var tornCommit: LogFile.Commit?
        if version >= 3, !scan.damage.isEmpty, let previous = file.intactCommits().dropFirst().first,
           previous.commit.end <= newest.end {
            // A power cut can write the header's page but not a record's: the commit before
            // may hold where the newest does not.
            let newestIndex = (index, liveBytes)
            let retry = read(file, base, commit: previous.commit)
            if retry.damage.isEmpty {
                file.adopt(previous)
                scan = retry
                tornCommit = newest
            } else {
                adopt(index: newestIndex.0, liveBytes: newestIndex.1, end: localEnd, group: group, counter: file.changeCounter)
            }
        }
        let commit = file.current
        let openGroupKept = version >= 3 && scan.end == commit.end && commit.groupStart < commit.end
        let group = openGroupKept
            ? RecordGroup(resuming: commit, count: LogScanner(version: version).countRecords(base, from: commit.groupStart, to: commit.end))
            : RecordGroup(start: scan.end)
        adopt(index: index, liveBytes: liveBytes, end: scan.end, group: group, counter: file.changeCounter)
        let end = max(commit.end, tornCommit?.end ?? 0)
        let limit = max(start, min(end, file.mappedSize))
        let truncated = max(0, commit.end - file.mappedSize)
        var report = Preferences.RecoveryReport(
            droppedBytes: scan.damagedBytes + truncated, keptRecords: scan.kept,
            damageOffset: scan.damage.first?.lowerBound ?? scan.end, movedAside: nil, damagedKeys: scan.damagedKeys,
            reason: ""
        )
        if let tornCommit {
            let torn = commit.end..<min(tornCommit.end, file.mappedSize)
            report.droppedBytes = tornCommit.end - commit.end
            report.damageOffset = commit.end
            report.damagedKeys = LogScanner.keys(base, in: torn)
        } else if let lostCommit, scan.damage.isEmpty {
            report.droppedBytes = lostCommit.count
            report.damageOffset = lostCommit.lowerBound
            report.damagedKeys = LogScanner.keys(base, in: lostCommit)
        }
        guard !scan.damage.isEmpty || truncated > 0 || tornCommit != nil || lostCommit != nil || commit.end < start else { return }

        if scan.hasDamageInside {
            // Intact records follow the damage: rewrite the log without it, old file aside.
            let aside = try keepAside(url)
            try compactLocked(reserving: 0)
            recovery = report.with(movedAside: aside, reason: "\(scan.damage.count) damaged area(s) failed their checksums; the intact records around them were kept and the log rewritten")
            return
        }
        // Only the tail is damaged: cut it (zeroed, so that a later salvage cannot take it
        // for records) and keep everything before it.
        memset(base + scan.end, 0, max(limit, lostCommit?.upperBound ?? 0) - scan.end)
        file.publish(group.commit(counter: file.nextCounter, end: scan.end))
        adopt(index: index, liveBytes: liveBytes, end: scan.end, group: group, counter: file.changeCounter)
        if durable { try file.sync(metadata: true) }
        recovery = report.with(
            movedAside: nil,
            reason: tornCommit != nil
                ? "the last write was torn (the header's last commit does not match the bytes on disk); the commit before it was kept"
                : lostCommit != nil && scan.damage.isEmpty
                ? "the header's last commit was damaged (its checksum failed and its fields do not match the records); the records it published were dropped"
                : truncated > 0
                ? "the file ends before its last acknowledged record (truncated); the records after offset \(scan.end) were dropped"
                : "the records at offset \(scan.end) failed their checksum (a torn or corrupt write); they and the damaged bytes after them were dropped"
        )
    }

    /// Looks at the commit slot that is not current when its checksum fails: a commit torn
    /// by a crash after its fields were written (see ``LogFile/publish(_:)``), or a slot
    /// damaged on disk. When the records after the current commit match what it claims, it
    /// is sealed again and becomes current: nothing is lost. When they do not but the slot
    /// claims to be the next commit and to reach past the current end, the records after
    /// the current end were acknowledged and are lost: their range is returned for the report.
    private func repairUnsealedCommit(_ file: LogFile) -> Range<Int>? {
        guard let claimed = file.unsealedCommit(), let base = file.base else { return nil }
        let current = file.current
        if claimed.end > current.end, claimed.end <= file.mappedSize, claimed.groupStart >= current.groupStart,
           LogScanner.continuation(base, of: RecordGroup(resuming: current, count: 0), from: current.end, to: claimed) != nil {
            var repaired = claimed
            repaired.counter = file.nextCounter
            repaired.retired = current.retired
            file.publish(repaired)
            return nil
        }
        // A slot torn before its end was written still shows the end of two commits ago:
        // it never claimed the records after the current end, which were therefore never
        // acknowledged. Only a next commit that reaches past the current end lost them.
        guard claimed.counter == current.counter &+ 1, claimed.end > current.end else { return nil }
        var end = current.end
        while end < file.mappedSize, let frame = RecordFrame(base, at: end, limit: file.mappedSize) { end = frame.end }
        return end > current.end ? current.end..<end : nil
    }

    /// Reads the records of `file` up to `commit` into a fresh index.
    private func read(_ file: LogFile, _ base: UnsafeMutableRawPointer, commit: LogFile.Commit) -> LogScanner.Result {
        let start = LogFile.recordsStart(version: file.version)
        return read(base, version: file.version, from: start, to: max(start, min(commit.end, file.mappedSize)),
                    commit: file.version >= 3 ? commit : nil, ignoringZeroTail: false, counter: file.changeCounter)
    }

    /// Reads the records of `start..<limit` in `version` into a fresh index, which the
    /// engine adopts.
    ///
    /// The index is first reserved for every record at once (estimated from the records at
    /// the start, see ``LogScanner/estimateRecords(_:from:to:)``), so that it is allocated
    /// once rather than at every doubling, up to ``maximumReservation`` entries: a hostile
    /// file of tiny records must not make an open reserve gigabytes. Before the records of
    /// a verified group are applied, their index slots are loaded together
    /// (``KeyIndex/prefetch(_:)``).
    private func read(
        _ base: UnsafeMutableRawPointer, version: UInt32, from start: Int, to limit: Int, commit: LogFile.Commit?,
        ignoringZeroTail: Bool, counter: UInt64
    ) -> LogScanner.Result {
        let scanner = LogScanner(version: version)
        // A salvage reads to the end of the mapping: its zero tail is no records.
        let recordsEnd = ignoringZeroTail ? LogScanner.lastNonZero(base, from: start, to: limit) : limit
        let estimate = scanner.estimateRecords(base, from: start, to: recordsEnd)
        var index = KeyIndex(capacity: min(estimate, PreferencesEngine.maximumReservation))
        var live = 0
        let result = scanner.scan(
            base, from: start, to: limit, commit: commit, ignoringZeroTail: ignoringZeroTail, willVisit: { index.prefetch($0) }
        ) { record, offset in
            PreferencesEngine.apply(record.kind, key: record.key, keyHash: record.keyHash, value: record.value, expiry: record.expiry,
                                    offset: offset, length: record.length, to: &index, liveBytes: &live)
        }
        adopt(index: index, liveBytes: live, end: result.end, group: RecordGroup(start: result.end), counter: counter)
        return result
    }

    /// Salvages a log whose header cannot be trusted: the file is kept aside as it is, its
    /// intact records (found by their own checksums) are written into a fresh log.
    private func salvage(_ file: LogFile, url: URL) throws {
        log = file
        resetIndex(end: LogFile.headerSize, counter: 0)
        var scan = LogScanner.Result(end: LogFile.headerSize)
        if let base = file.base {
            // The version field may be the damaged one: try each format, newest first. A
            // version 3 log whose commit slots are intact loses nothing.
            for version in [LogFile.version, FormatVersion2.version, FormatVersion1.version] {
                let start = LogFile.recordsStart(version: version)
                guard file.mappedSize > start else { continue }
                let commit = version >= 3 ? file.intactCommits().first?.commit : nil
                let limit = commit.map { max(start, min($0.end, file.mappedSize)) } ?? file.mappedSize
                scan = read(base, version: version, from: start, to: limit, commit: commit, ignoringZeroTail: commit == nil, counter: 0)
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
        try FileStore.syncFolder(file.url.deletingLastPathComponent().path)
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
