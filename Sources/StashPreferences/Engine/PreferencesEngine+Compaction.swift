import Foundation
import StashCore

extension PreferencesEngine {
    /// Rewrites the log with only its live, unexpired records.
    func compact() throws {
        if isClosed { throw StashError(.closed, "the preferences were closed", path: url?.path) }
        guard log != nil else { return }
        try withFileLock { try compactLocked(reserving: 0) }
    }

    /// Copies the live records into a fresh file and renames it over the log; the file lock
    /// is held.
    ///
    /// The new file is complete and fsynced before the rename, so a crash at any moment
    /// leaves either the old log or the new one, each whole. The old file is marked retired
    /// (and its change counter bumped) before the rename, so that other processes reopen
    /// the suite on their next access.
    func compactLocked(reserving extra: Int) throws {
        guard let url, let old = log, let oldBase = old.base else { return }
        let now = clock.now.timeIntervalSince1970
        var newIndex: [String: Entry] = [:]
        newIndex.reserveCapacity(index.count)
        var live = 0
        for (_, entry) in index where entry.expiry.map({ $0 > now }) ?? true { live += entry.length }
        let size = PreferencesEngine.pageRounded(max(LogFile.minimumSize, LogFile.headerSize + 2 * (live + extra)))

        let temporary = URL(fileURLWithPath: url.path + ".compact-\(UInt32.random(in: 0...UInt32.max))")
        let fresh: LogFile
        do {
            fresh = try LogFile(url: temporary, exclusive: true)
            try fresh.grow(to: size)
        } catch {
            try? FileStore.delete(temporary)
            throw error
        }
        guard let newBase = fresh.base else { return }
        fresh.writeHeader(generation: old.generation &+ 1, changeCounter: old.changeCounter &+ 2)
        var offset = LogFile.headerSize
        for (key, entry) in index where entry.expiry.map({ $0 > now }) ?? true {
            (newBase + offset).copyMemory(from: oldBase + entry.offset, byteCount: entry.length)
            var moved = entry
            moved.offset = offset
            newIndex[key] = moved
            offset += entry.length
        }
        fresh.end = offset
        do {
            try fresh.sync(metadata: true)
        } catch {
            fresh.close()
            try? FileStore.delete(temporary)
            throw error
        }
        old.isRetired = true
        old.changeCounter &+= 1
        do {
            try FileStore.move(temporary, to: url)
        } catch {
            old.isRetired = false
            fresh.close()
            try? FileStore.delete(temporary)
            throw error
        }
        fresh.url = url
        FileStore.syncFolder(url.deletingLastPathComponent().path)
        old.close()
        log = fresh
        adopt(index: newIndex, liveBytes: live, end: offset, counter: fresh.changeCounter)
    }
}
