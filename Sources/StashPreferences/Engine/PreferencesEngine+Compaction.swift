import Foundation
import StashCore

/// Making room in the log: growing the file, or compacting it into a fresh one.
extension PreferencesEngine {
    /// Makes room for `count` more bytes: by compacting when most of the log is dead,
    /// otherwise by growing the file.
    func reserve(_ count: Int) throws {
        guard let log else { return }
        if log.version != LogFile.version {
            // A log of an older format: the first write migrates it to the current one.
            try compactLocked(reserving: count)
            if let log = self.log, localEnd + count <= log.mappedSize { return }
        }
        let needed = localEnd + count
        guard needed > log.mappedSize else { return }
        let used = localEnd - LogFile.recordsStart(version: log.version)
        if used > 0, used - liveBytes >= used / 2 {
            try compactLocked(reserving: count, leavingRoom: true)
            if let log = self.log, localEnd + count <= log.mappedSize { return }
        }
        try grow(to: localEnd + count)
    }

    /// Grows the file to at least `needed` bytes: doubling under 8 MB, by 8 MB past it.
    func grow(to needed: Int) throws {
        guard let log else { return }
        let step = log.mappedSize < 8 << 20 ? max(log.mappedSize, LogFile.minimumSize) : 8 << 20
        try log.grow(to: PreferencesEngine.pageRounded(max(needed, log.mappedSize + step)))
        if durable { try log.sync(metadata: true) }
    }

    /// `size` rounded up to a whole 4 KB page.
    static func pageRounded(_ size: Int) -> Int { (size + 4095) & ~4095 }

    /// Rewrites the log with only its live, unexpired records.
    func compact() throws {
        if isClosed { throw StashError(.closed, "the preferences were closed", path: url?.path) }
        guard log != nil else { return }
        try withFileLock { try compactLocked(reserving: 0) }
    }

    /// The size of a compacted log of `live` bytes: room for as many again, so that it
    /// compacts again only once half of it is dead. `leavingRoom` gives a log under 1 MB up
    /// to three times its live size (and at most 1 MB) of room instead: a small suite whose
    /// keys are rewritten over and over (counters, state) then compacts once per 1 MB or three
    /// times its size of writes, not once per its size. Each compaction costs a fresh file
    /// and two `fsync`s, which were a third of the time of such rewrites; the file stays
    /// within four times the live data.
    static func compactedSize(live: Int, leavingRoom: Bool) -> Int {
        let room = leavingRoom ? max(live, min(3 * live, 1 << 20)) : live
        return pageRounded(max(LogFile.minimumSize, LogFile.headerSize + live + room))
    }

    /// Copies the live records into a fresh file in the current format and renames it over
    /// the log; the file lock is held.
    ///
    /// The new file is complete and fsynced before the rename, so a crash at any moment
    /// leaves either the old log or the new one, each whole. The old file is marked retired
    /// (and its change counter bumped) before the rename, so that other processes reopen
    /// the suite on their next access. Records of an older format are re-encoded (this is
    /// how version 1 and 2 logs migrate); current ones are copied as they are, in groups of
    /// their own (see ``RecordGroup``), the last one closed.
    ///
    /// - parameters:
    ///   - extra: The bytes the next append needs.
    ///   - reencoding: Whether to encode every record again (the records were salvaged from a
    ///     file whose header, version field included, is not trusted).
    ///   - leavingRoom: Whether to leave a small log more room than its live size (a log
    ///     that filled up with rewrites; see ``compactedSize(live:leavingRoom:)``).
    func compactLocked(reserving extra: Int, reencoding: Bool = false, leavingRoom: Bool = false) throws {
        guard let url, let old = log, let oldBase = old.base else { return }
        let now = clock.now.timeIntervalSince1970
        let copiesRecords = old.version == LogFile.version && !reencoding
        // The same index with its entries moved: no key is hashed again. Expired keys leave
        // first, as a removal moves the last key into the hole.
        var newIndex = index
        var live = 0
        for element in index.elements {
            if element.entry.expiry.map({ $0 > now }) ?? true {
                live += element.entry.length
            } else {
                newIndex.removeValue(forKey: element.key)
            }
        }
        let size = Self.compactedSize(live: live + extra, leavingRoom: leavingRoom)
        live = 0

        let temporary = URL(fileURLWithPath: url.path + ".compact-\(UInt32.random(in: 0...UInt32.max))")
        let fresh: LogFile
        do {
            fresh = try LogFile(url: temporary, exclusive: true)
            try fresh.grow(to: size)
        } catch {
            try? FileStore.delete(temporary)
            throw error
        }
        do {
            let counter = old.nextCounter &+ 1
            fresh.writeHeader(generation: old.generation &+ 1, changeCounter: counter)
            var offset = LogFile.headerSize
            var group = RecordGroup(start: offset)
            var encoder = RecordEncoder()
            for position in newIndex.elements.indices {
                let (key, entry) = (newIndex.elements[position].key, newIndex.elements[position].entry)
                var moved = entry
                moved.offset = offset
                if copiesRecords {
                    try fresh.ensureRoom(offset + entry.length + Record.maximumGroupEndLength)
                    offset = group.append(UnsafeRawBufferPointer(start: oldBase + entry.offset, count: entry.length), to: fresh.base!, at: offset)
                } else {
                    try encoder.encode(entry.expiry == nil ? .set : .setExpiring, key: key, value: entry.value, expiry: entry.expiry)
                    try fresh.ensureRoom(offset + encoder.count + Record.maximumGroupEndLength)
                    offset = encoder.withBytes { group.append($0, to: fresh.base!, at: offset) }
                    moved.length = encoder.count
                }
                live += moved.length
                newIndex.setEntry(moved, at: position)
            }
            offset = group.close(fresh.base!, at: offset)
            // Both slots hold the compacted log: the commit before it (the empty log of
            // `writeHeader`) must never be what an open falls back to when it finds damage.
            let compacted = group.commit(counter: counter &+ 1, end: offset)
            fresh.publish(compacted)
            fresh.publish(compacted)
            try fresh.sync(metadata: true)
            old.setRetired(true)
            do {
                try FileStore.move(temporary, to: url)
            } catch {
                old.setRetired(false)
                throw error
            }
            fresh.url = url
            old.close()
            log = fresh
            adopt(index: newIndex, liveBytes: live, end: offset, group: group, counter: fresh.changeCounter)
        } catch {
            fresh.close()
            try? FileStore.delete(temporary)
            throw error
        }
        // Renamed: the new log is the suite's whatever follows. A failed folder sync is
        // reported with it in place (it holds the same values as the old one).
        try FileStore.syncFolder(url.deletingLastPathComponent().path)
    }
}
