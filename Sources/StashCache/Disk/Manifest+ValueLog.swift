import Foundation
import GRDB
import GRDBSQLite
import StashCore

/// The manifest's side of the value log (``ValueLog``): the committed end of each segment,
/// the generation the ``LocationIndex`` follows, and what compaction reads and moves.
extension Manifest {
    /// Records `size` as the committed end of `segment`, in the transaction of `db`.
    static func recordSegment(_ segment: Int, size: Int, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO segment (id, size) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET size = excluded.size
            """)
        statement.setUncheckedArguments([segment, size])
        try statement.execute()
    }

    /// Counts one more transaction that changed rows, in the transaction of `db`; returns the
    /// new count.
    @discardableResult
    static func advanceGeneration(_ db: Database) throws -> Int64 {
        try db.execute(sql: "UPDATE counter SET value = value + 1 WHERE name = 'generation'")
        return try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM counter WHERE name = 'generation'") ?? 0
    }

    /// The committed end of every segment.
    ///
    /// - throws: ``/StashCore/StashError/Code/corruptFile`` for a row no segment can have (a
    ///   number outside 1..<2^31, a size outside 0..<2^32): a writer's open then rebuilds
    ///   the cache.
    func segments() throws -> [Int: Int] {
        var segments: [Int: Int] = [:]
        try rows("SELECT id, size FROM segment") { row in
            // Cast by GRDB's checked decoding: a crafted value is an error, not a trap.
            // Fixed-width bounds: on a 32-bit `Int` (watchOS) a size up to 2^32 does not fit.
            let id: Int64 = try row.decode(atIndex: 0), size: Int64 = try row.decode(atIndex: 1)
            guard (1..<(Int64(1) << 31)).contains(id), (0..<(Int64(1) << 32)).contains(size),
                  let id = Int(exactly: id), let size = Int(exactly: size)
            else {
                throw StashError(.corruptFile, "segment \(id) of \(size) bytes", path: url.path)
            }
            segments[id] = size
            return true
        }
        return segments
    }

    /// The bytes of live records in each of `segments`: the spans of the rows naming it,
    /// summed along `entry_loc` (which holds them) one segment's range at a time.
    func liveBytes(in segments: some Sequence<Int>) throws -> [Int: Int] {
        var live: [Int: Int] = [:]
        for segment in segments {
            let range = ValueLocation.range(ofSegment: segment)
            try rows("SELECT coalesce(sum(span), 0) FROM entry WHERE loc >= ? AND loc < ?", arguments: [range.lowerBound, range.upperBound]) { row in
                live[segment] = try row.decode(atIndex: 0)
                return false
            }
        }
        return live
    }

    /// The rows whose records are in `segment`: rowid, key and location, in the segment's order.
    func rows(inSegment segment: Int) throws -> [(rowid: Int64, key: String, location: ValueLocation)] {
        var found: [(rowid: Int64, key: String, location: ValueLocation)] = []
        let range = ValueLocation.range(ofSegment: segment)
        try rows("SELECT rowid, key, loc, span FROM entry WHERE loc >= ? AND loc < ? ORDER BY loc", arguments: [range.lowerBound, range.upperBound]) { row in
            let location = ValueLocation(packed: try row.decode(atIndex: 2), span: try row.decode(atIndex: 3)) ?? .invalid
            found.append((try row.decode(atIndex: 0), try row.decode(atIndex: 1), location))
            return true
        }
        return found
    }

    /// Records `size` as the value log's size at compaction's last measure.
    func recordLogChecked(_ size: Int) throws {
        do {
            try database.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO counter (name, value) VALUES ('log_checked', ?)", arguments: [size])
            }
        } catch {
            throw Manifest.stashError(error, path: url.path)
        }
    }

    /// In one transaction, synced to disk (`synchronous = FULL` for it): gives rows their
    /// records' new locations (`moves`, by rowid, each only if the row still names `from`),
    /// records the new end of the newest segment, and forgets the segments emptied; returns
    /// the manifest's new generation.
    func move(_ moves: [(rowid: Int64, from: ValueLocation, to: ValueLocation)], segmentEnd: (segment: Int, size: Int), emptied: [Int]) throws -> Int64 {
        do {
            // Synchronous in full for this commit: the segment the rows leave is deleted next.
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            defer { try? database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") } }
            return try database.write { db -> Int64 in
                let update = try db.cachedStatement(sql: "UPDATE entry SET loc = ?, span = ? WHERE rowid = ? AND loc = ?")
                for move in moves {
                    update.setUncheckedArguments([move.to.packed, move.to.span, move.rowid, move.from.packed])
                    try update.execute()
                }
                try Manifest.recordSegment(segmentEnd.segment, size: segmentEnd.size, db)
                let forget = try db.cachedStatement(sql: "DELETE FROM segment WHERE id = ?")
                for segment in emptied {
                    forget.setUncheckedArguments([segment])
                    try forget.execute()
                }
                return try Manifest.advanceGeneration(db)
            }
        } catch {
            throw Manifest.stashError(error, path: url.path)
        }
    }
}
