import Foundation
import StashCore

extension DiskCache {
    /// The value log's size below which it is left as it is, dead bytes and all.
    static let compactionFloor = 1 << 20

    /// How many bytes of records one compaction step copies and commits at a time.
    static let compactionStep = 4 << 20

    /// Reclaims the value log's dead bytes (records of values replaced or removed) once they
    /// outweigh its live ones, so that the log stays under about twice the bytes it holds.
    /// Runs on ``queue``, after trimming.
    ///
    /// Measuring the live bytes reads the manifest's `entry_loc` index, so it is done only
    /// when the log has grown by a quarter (and a megabyte) since the last measure, or the
    /// cache's values have shrunk to less than half (a "clear cache", a large trim). Then
    /// every segment at most half live is compacted: its live records are copied to the
    /// newest segment (sealed first when it is one of them), their rows moved in
    /// transactions of ``compactionStep`` bytes, and the segment is deleted. Readers never
    /// miss a record meanwhile: each step commits, moves the reader's snapshot and the
    /// ``LocationIndex`` to the copies, and only then is the segment deleted. A read-only view
    /// in another process reading an older snapshot misses the records of a deleted segment.
    /// Unlike a flush, compaction syncs: the copies and the commit that moves the rows to
    /// them reach the disk before the segment is deleted, so a power cut loses no value.
    func compactIfDue() throws {
        // The log's size as this writer knows it: no manifest query on each flush.
        let written = valueLog.size
        let (checked, shrunk) = state.withLock { (max($0.logChecked, 0), $0.totalSize < $0.sizeAtLogCheck / 2) }
        guard written >= Self.compactionFloor, shrunk || written - checked >= max(checked / 4, Self.compactionFloor) else { return }
        let segments = try manifest.segments()
        let total = segments.values.reduce(0, +)
        let live = try manifest.liveBytes(in: segments.keys)
        let liveTotal = live.values.reduce(0, +)
        var size = total
        if total - liveTotal > max(liveTotal, Self.compactionFloor) {
            let victims = segments.keys.filter { (live[$0] ?? 0) <= (segments[$0] ?? 0) / 2 }.sorted()
            if victims.contains(valueLog.activeSegment) { valueLog.seal() }
            for segment in victims where segment != valueLog.activeSegment { try compact(segment) }
            size = try manifest.segments().values.reduce(0, +)
        }
        try manifest.recordLogChecked(size)
        state.withLock { state in
            state.logChecked = size
            state.sizeAtLogCheck = state.totalSize
        }
    }

    /// Copies the live records of `segment` to the newest segment, moves their rows, and
    /// deletes it.
    private func compact(_ segment: Int) throws {
        let rows = try manifest.rows(inSegment: segment)
        var next = 0
        repeat {
            var records: [UInt8] = []
            var moves: [(rowid: Int64, from: ValueLocation, to: ValueLocation, key: String, isSliding: Bool)] = []
            while next < rows.count, records.count < Self.compactionStep {
                let row = rows[next]
                next += 1
                var key = row.key
                let logged: ValueLogRecord
                switch key.withUTF8({ valueLog.read(row.location, key: $0) }) {
                case .record(let record): logged = record
                // Gone already (lost in a power cut, damaged): it stays behind, and its row
                // reads as lost and goes.
                case .gone: continue
                // Not readable now: the segment stays, to be compacted another time.
                case .unreadable(let error): throw error
                }
                let start = records.count
                let span = ValueLogRecord.append(key: row.key, logged.diskRecord(at: row.location), value: logged.value, to: &records)
                moves.append((row.rowid, row.location, ValueLocation(segment: 0, offset: start, span: span), row.key, logged.sliding != nil))
            }
            var end = (segment: valueLog.activeSegment, size: valueLog.activeEnd)
            if !records.isEmpty {
                let (newest, offset) = try valueLog.append(records)
                for index in moves.indices {
                    moves[index].to.segment = newest
                    moves[index].to.offset += offset
                }
                end = (newest, offset + records.count)
                // The copies reach the disk before rows name them: the segment they leave
                // is deleted once the move is committed, and a power cut must not take both.
                try valueLog.sync()
            }
            let isLast = next >= rows.count
            let generation = try manifest.move(moves.map { ($0.rowid, $0.from, $0.to) }, segmentEnd: end, emptied: isLast ? [segment] : [])
            // Lookups see the copies before the segment goes.
            reader.renew()
            state.withLock { state in
                // Dates read at the old locations go with the rows.
                for move in moves {
                    if let accessed = state.touchedLocations.removeValue(forKey: move.from.packed) { state.touchedLocations[move.to.packed] = accessed }
                }
                guard let locations = state.locations else { return }
                for move in moves { locations.set(move.isSliding ? nil : move.to, for: locations.hash(move.key)) }
                locations.follow(generation)
            }
        } while next < rows.count
        valueLog.remove(segment: segment)
    }
}
