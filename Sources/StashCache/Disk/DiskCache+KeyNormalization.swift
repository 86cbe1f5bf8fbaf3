import Foundation
import GRDB
import StashCore

extension DiskCache {
    /// Moves the rows of a writer's manifest saved under a key that is not in NFC (versions
    /// before ``StashCore/StoredKey`` saved keys as given) to that form. Only keys with a
    /// byte beyond ASCII are read (through `entry_wide_key`): an ASCII key is in NFC.
    ///
    /// Several rows may be one key (`"café"` precomposed and decomposed): the newest write
    /// is kept, the others are deleted with their files. A kept file-backed value keeps its
    /// file (names are not derived from keys). The order survives a crash at any point: the
    /// losers' files are unlinked after the commit, so each row always names a file that
    /// exists and reconciliation only removes true orphans.
    static func normalizeKeys(of manifest: Manifest, filesDirectory: URL, recovery: inout Recovery) throws {
        var groups: [String: [(stored: String, record: DiskRecord)]] = [:]
        var needsWork = false
        let columns = "key, \(Manifest.recordColumns)"
        try manifest.rows("SELECT \(columns) FROM entry WHERE \(Manifest.wideKey)") { row in
            let stored: String = try row.decode(atIndex: 0)
            let key = (try? StoredKey.normalized(stored)) ?? stored
            // `Dictionary` compares keys as Swift does, so every form of a key lands in one group.
            groups[key, default: []].append((stored, try Manifest.record(row, from: 1)))
            if !stored.utf8.elementsEqual(key.utf8) { needsWork = true }
            return true
        }
        guard needsWork else { return }
        // A key whose NFC form is ASCII (the Kelvin sign's is "K") may have a row under that
        // form, which the walk of wide keys did not see: it joins its group.
        for (key, rows) in groups where !rows.contains(where: { $0.stored.utf8.elementsEqual(key.utf8) }) {
            try manifest.rows("SELECT \(columns) FROM entry WHERE key = ?", arguments: [key]) { row in
                groups[key, default: []].append((try row.decode(atIndex: 0), try Manifest.record(row, from: 1)))
                return false
            }
        }
        var removals: [String] = []
        var moves: [(from: String, to: String, file: String?)] = []
        var filesToDelete: [String] = []
        for (key, rows) in groups {
            let winner = rows.max { ($0.record.created, $0.record.accessed) < ($1.record.created, $1.record.accessed) }!
            let record = winner.record
            let isStored = winner.stored.utf8.elementsEqual(key.utf8)
            for row in rows where !row.stored.utf8.elementsEqual(winner.stored.utf8) {
                removals.append(row.stored)
                if let file = row.record.file, file != record.file { filesToDelete.append(file) }
            }
            if !isStored {
                // A file's name is never derived from its key again: the winner keeps its file.
                moves.append((winner.stored, key, record.file))
                recovery.normalizedKeys += 1
            }
        }
        try manifest.rewrite(removing: removals, renaming: moves, resizing: [:])
        recovery.removedEntries += removals.count
        for file in filesToDelete { unlink(filesDirectory.appendingPathComponent(file).path) }
    }
}
