public import Foundation
import StashCore

extension DiskCache {
    /// The value of `key`, or `nil` when there is none, it expired, or the cache is closed.
    ///
    /// ```swift
    /// if let data = cache.data(forKey: "feed") { … }
    /// ```
    ///
    /// Staged writes are seen at once. A hit updates the last-access date (and extends a
    /// sliding expiry) in memory, in steps of ``accessDateResolution``; the next flush
    /// records it. An expired entry is never returned and its removal is staged. A value
    /// whose file is gone (deleted behind the cache's back) is a miss and its entry is
    /// removed; one whose file cannot be read now (out of file descriptors, permission, an
    /// I/O error) is a miss that keeps the entry. A read that fails counts as a miss in
    /// ``statistics()`` and leaves the entry's dates alone. Thread-safe.
    public func data(forKey key: String) -> Data? {
        read(key)?.data
    }

    /// How far apart two reads of an entry must be for the second to move its last-access
    /// date (and sliding deadline) again: least-recently-used order and sliding expiry are
    /// kept to the second, as in most disk caches, rather than to the read.
    public static let accessDateResolution: TimeInterval = 1

    /// The value of `key` with its dates, size and metadata.
    ///
    /// ```swift
    /// if let entry = cache.entry(forKey: "page"), let etag = entry.info.metadata { … }
    /// ```
    public func entry(forKey key: String) -> Entry? {
        guard let (data, record, key) = read(key) else { return nil }
        return Entry(data: data, info: record.info(key: key))
    }

    /// A hit's value, record and stored key, without building an ``EntryInfo`` (dates,
    /// metadata) that ``data(forKey:)`` would throw away.
    private func read(_ key: String) -> (data: Data, record: DiskRecord, key: String)? {
        guard let key = try? StoredKey.normalized(key) else { return nil }
        if isReadOnly { return readOnlyEntry(forKey: key) }
        guard let (record, before, source) = access(key, onlyFiles: false) else { return nil }
        let data: Data
        switch source {
        case .inline(let value): data = value
        case .lost, .unreadable: return nil
        case .file(let name):
            let value: Data?
            do {
                value = try FileStore.read(atPath: filePath(named: name))
            } catch let error as StashError where error.code != .notFound {
                // Out of file descriptors, no permission, an I/O error: the value may be
                // whole on disk, so this read misses and the entry stays as it was.
                failedRead(of: key, record, before: before, isGone: false)
                return nil
            } catch {
                value = nil
            }
            // A file shorter or longer than its value (cut short, or written to behind the
            // cache's back) holds no value: read as a file that is gone.
            guard let value, value.count == record.size else {
                failedRead(of: key, record, before: before, isGone: true)
                return nil
            }
            return (value, record, key)
        }
        return (data, record, key)
    }

    /// Opens the file holding the value of `key` for reading, counting a hit as
    /// ``data(forKey:)`` does (the last-access date that trimming orders by, a sliding
    /// expiry), without reading it; `nil` when the value is missing, expired, stored inline
    /// (see ``fileURL(for:)``), its file is gone, or the file cannot be opened now.
    ///
    /// A file that is gone (deleted behind the cache's back) or whose size is not the
    /// value's (cut short or written to behind the cache's back) removes the entry, so a
    /// handle returned here always holds ``EntryInfo/size`` bytes. Any other failure to open
    /// it (the process is out of file descriptors, permission, an I/O error) returns `nil`
    /// and keeps the entry: the value is still there for a later read.
    ///
    /// ```swift
    /// if let handle = cache.openFile(forKey: "movie.mp4") {
    ///     while let part = try handle.read(upToCount: 1 << 16) { try await output.write(part) }
    /// }
    /// ```
    ///
    /// The handle reads the value as it was when opened: a later removal, replacement or
    /// trim of the key does not change what it reads (the file is unlinked or renamed over,
    /// not rewritten). The handle closes when released. Thread-safe.
    public func openFile(forKey key: String) -> FileHandle? {
        (try? openFileReportingFailure(forKey: key)) ?? nil
    }

    /// ``openFile(forKey:)`` telling a value that is gone (`nil`, the entry removed when its
    /// file is missing or not the value's size) from a file that exists but cannot be
    /// opened now (thrown: out of file descriptors, permission, I/O; the entry stays).
    ///
    /// - throws: ``/StashCore/StashError`` with the `open` (or `stat`) failure's code and `errno`.
    package func openFileReportingFailure(forKey key: String) throws -> FileHandle? {
        guard let key = try? StoredKey.normalized(key) else { return nil }
        let name: String
        let record: DiskRecord
        // The record before `access` counted the hit (a writer's), for a failure to undo it.
        var before: DiskRecord?
        if isReadOnly {
            guard let row = reader.row(forKey: key), isLive(row.record, at: now), let file = row.record.file else { return nil }
            (name, record) = (file, row.record)
        } else {
            guard let (found, unmoved, source) = access(key, onlyFiles: true), case .file(let file) = source else { return nil }
            (name, record, before) = (file, found, unmoved)
        }
        let path = filePath(named: name)
        let fd = SystemCalls.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let error = StashError.posix("open", path: path)
            // Only a missing file means the value is gone; out of file descriptors
            // (EMFILE, ENFILE), no permission or an I/O error leave the entry for later.
            if let before { failedRead(of: key, record, before: before, isGone: error.code == .notFound) }
            guard error.code == .notFound else { throw error }
            return nil
        }
        let file = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = StashError.posix("stat", path: path)
            if let before { failedRead(of: key, record, before: before, isGone: false) }
            throw error
        }
        guard Int(info.st_size) == record.size else {
            // Cut short (or grown) behind the cache's back: whoever reads it would get a
            // value that is not the one stored, or fewer bytes than its size promised.
            if let before { failedRead(of: key, record, before: before, isGone: true) }
            return nil
        }
        return file
    }

    /// Where a hit's value is: read with its row (staged, in the value log, or in the
    /// manifest), or in a file. Or why its record in the value log gave no value: the record
    /// is `lost` (its bytes are gone or not its record: the entry goes), or `unreadable` now
    /// (out of descriptors, an I/O error: the entry stays).
    private enum Source {
        case inline(Data)
        case file(String)
        case lost
        case unreadable
    }

    /// The live record of the normalized `key` (its access counted), the record before the
    /// hit moved its dates, and where its value is. A miss is counted here, and so is a hit,
    /// whose last-access date and sliding deadline move (``countHit(of:_:_:now:delay:)``):
    /// one lock for a hit. A value in a file may still fail to read; the caller then turns
    /// the hit into a miss (``failedRead(of:_:before:isGone:)``), so that an entry it cannot
    /// read does not look recently used. `onlyFiles` looks only for file-backed values: an
    /// inline one is neither returned nor counted.
    private func access(_ key: String, onlyFiles: Bool) -> (record: DiskRecord, before: DiskRecord, source: Source)? {
        let now = self.now
        let delay = configuration.flushDelay
        if !onlyFiles, let read = readIndexed(key, now: now, delay: delay) {
            guard let (record, before, source, flushDelay) = read else { return nil }
            if let flushDelay { scheduleBackgroundFlush(after: flushDelay) }
            return (record, before, source)
        }
        let reader = self.reader
        let found = state.withLock { state -> (DiskRecord, DiskRecord, Source, TimeInterval?)? in
            guard !state.isClosed, let (record, source) = Self.lookUp(key, in: state, reader, valueLog, onlyFiles: onlyFiles) else {
                state.recordMiss()
                return nil
            }
            if onlyFiles, record.file == nil { return nil }
            switch source {
            case .lost:
                // Its record is gone from the value log (lost in a power cut, damaged): as a
                // value whose file is gone, the entry goes. Not while suspended: another
                // writer may have moved the record meanwhile, and the row read is gone too.
                if state.suspension == nil { state.stageRemoval(key, old: record) }
                state.recordMiss()
                return nil
            case .unreadable:
                state.recordMiss()
                return nil
            case .inline, .file:
                break
            }
            if !isLive(record, at: now) {
                state.stageRemoval(key, old: record)
                state.recordMiss()
                return nil
            }
            let (counted, flushDelay) = countHit(of: key, record, &state, now: now, delay: delay)
            return (counted, record, source, flushDelay)
        }
        guard let (record, before, source, flushDelay) = found else { return nil }
        if let flushDelay { scheduleBackgroundFlush(after: flushDelay) }
        return (record, before, source)
    }

    /// The common hit, a small value filed in the ``LocationIndex``, read with its record
    /// outside the state lock, so that reads run side by side and none waits for another's
    /// `pread`: the lock is taken to find the slot's location, and again after the read to
    /// check that the slot still names it and to count the hit. A location is never reused,
    /// so a slot that names the same location after the read names the same record: no write,
    /// removal or compaction of the key came between. `nil` when the slow path must answer
    /// (a staged change, a key not filed, a record that did not read, a slot that moved); a
    /// miss (`.some(nil)`) when the record expired.
    private func readIndexed(_ key: String, now: Double, delay: TimeInterval) -> IndexedHit?? {
        var bytes = key
        return bytes.withUTF8 { utf8 -> IndexedHit?? in
            guard let location = state.withLock({ state in Self.indexedLocation(of: key, utf8, in: state) }),
                  case .record(let logged) = valueLog.read(location, key: utf8)
            else { return nil }
            let record = logged.diskRecord(at: location)
            return state.withLock { state -> IndexedHit?? in
                guard Self.indexedLocation(of: key, utf8, in: state) == location else { return nil }
                guard isLive(record, at: now) else {
                    state.stageRemoval(key, old: record)
                    state.recordMiss()
                    return .some(nil)
                }
                let (counted, flushDelay) = countHit(of: key, record, &state, now: now, delay: delay)
                return (counted, record, .inline(logged.value), flushDelay)
            }
        }
    }

    /// A hit as ``readIndexed(_:now:delay:)`` counted it: the record as it is now, as it was
    /// before the hit, its value, and the delay of the flush to schedule for its dates.
    private typealias IndexedHit = (record: DiskRecord, before: DiskRecord, source: Source, flushDelay: TimeInterval?)

    /// The location the ``LocationIndex`` files the key `utf8` under, when the key has no
    /// staged change and the cache is open; under the state lock.
    private static func indexedLocation(of key: String, _ utf8: UnsafeBufferPointer<UInt8>, in state: DiskCacheState) -> ValueLocation? {
        guard !state.isClosed, state.pending.isEmpty || state.pending[key] == nil, let locations = state.locations else { return nil }
        var found: ValueLocation?
        _ = locations.find(locations.hash(utf8)) { location in
            found = location
            return true
        }
        return found
    }

    /// The entry of `key` and where its value is, under the state lock: its staged change,
    /// else its record found through the ``LocationIndex`` (one probe and one read of the
    /// value log), else one lookup of its row, with its value unless `onlyFiles` (an inline
    /// row then comes back without it, for the caller to refuse). A record found through
    /// its row is filed in the index for the next read.
    private static func lookUp(_ key: String, in state: DiskCacheState, _ reader: ManifestReader, _ log: ValueLog, onlyFiles: Bool) -> (DiskRecord, Source)? {
        if !state.pending.isEmpty, let change = state.pending[key] {
            guard case .write(let record, let value) = change.value else { return nil }
            return (record, record.file.map(Source.file) ?? .inline(value ?? Data()))
        }
        var record: DiskRecord
        let source: Source
        if onlyFiles {
            guard let row = reader.record(forKey: key) else { return nil }
            record = row
            source = row.file.map(Source.file) ?? .inline(Data())
        } else {
            var bytes = key
            guard let (found, value, isIndexed) = bytes.withUTF8({ utf8 -> (DiskRecord, Source, Bool)? in
                let hash = state.locations?.hash(utf8)
                if let hash, let (record, source) = indexedRecord(utf8, hash, state.locations, log) { return (record, source, true) }
                guard let row = reader.row(forKey: key) else { return nil }
                guard let location = row.record.location else {
                    return (row.record, row.record.file.map(Source.file) ?? .inline(row.inlineValue ?? Data()), false)
                }
                switch log.read(location, key: utf8) {
                case .record(let logged):
                    // Filed for the next read, unless that would make the table grow: a
                    // read never rewrites the index (the next commit may).
                    if let hash, row.record.sliding == nil { state.locations?.set(location, for: hash, mayGrow: false) }
                    return (row.record, .inline(logged.value), false)
                case .gone: return (row.record, .lost, false)
                case .unreadable: return (row.record, .unreadable, false)
                }
            }) else { return nil }
            // An indexed record's last access is its creation, which the hit moves to now:
            // the dates read since the last flush need not be looked up (at a million
            // entries, a lookup in a table that no longer fits the processor's caches).
            if isIndexed { return (found, value) }
            (record, source) = (found, value)
        }
        state.overlay(key, on: &record)
        return (record, source)
    }

    /// The record of the key `utf8` (of index hash `hash`) as the ``LocationIndex`` finds it in the value log, `nil`
    /// when the index has no location of it (or none that reads as its record). Only
    /// records without a sliding expiry are filed, so the record's dates are the row's, but
    /// for its last access, which is its creation here and the manifest's or the touched
    /// one's once laid over.
    private static func indexedRecord(_ utf8: UnsafeBufferPointer<UInt8>, _ hash: UInt64, _ locations: LocationIndex?, _ log: ValueLog) -> (DiskRecord, Source)? {
        guard let locations else { return nil }
        var found: (record: ValueLogRecord, location: ValueLocation)?
        _ = locations.find(hash) { location in
            guard case .record(let logged) = log.read(location, key: utf8) else { return false }
            found = (logged, location)
            return true
        }
        guard let (logged, location) = found else { return nil }
        return (logged.diskRecord(at: location), .inline(logged.value))
    }

    /// Turns the hit ``access(_:onlyFiles:)`` counted for `key`'s value in a file (`record`
    /// as it returned it, `before` the record it moved) into a miss, because the file
    /// could not be read: in one lock. When the entry is still that value, a file that
    /// `isGone` (missing, or not the value's size) removes it; any other failure puts its
    /// last-access date and sliding deadline back, unless another read moved them since.
    private func failedRead(of key: String, _ record: DiskRecord, before: DiskRecord, isGone: Bool) {
        let delay = state.withLock { state -> TimeInterval? in
            state.turnHitIntoMiss()
            guard !state.isClosed, var current = state.current(key, reader) else { return nil }
            guard current.created == record.created, current.file == record.file else { return nil }
            if isGone {
                state.stageRemoval(key, old: current)
                return state.scheduleFlush(urgent: false, delay: configuration.flushDelay)
            }
            guard record != before, current.accessed == record.accessed, current.expires == record.expires else { return nil }
            (current.accessed, current.expires) = (before.accessed, before.expires)
            // The flush the hit scheduled records the dates put back.
            setAccess(of: key, current, &state)
            return nil
        }
        if let delay { scheduleBackgroundFlush(after: delay) }
    }

    /// Counts a hit of the live entry of `key` (`record`, as it is now): its last-access date and
    /// sliding deadline move, in steps of ``accessDateResolution``, and a flush is
    /// scheduled to record them (the delay returned, for the caller to schedule outside the
    /// lock). The record as it is now.
    private func countHit(
        of key: String, _ record: DiskRecord, _ state: inout DiskCacheState, now: Double, delay: TimeInterval
    ) -> (DiskRecord, TimeInterval?) {
        state.recordHit()
        var record = record
        // Reading the same entry again within the resolution leaves its dates (and the
        // manifest) alone, so that a burst of reads costs no bookkeeping and no flush.
        if now >= record.accessed, now - record.accessed < Self.accessDateResolution { return (record, nil) }
        record.accessed = now
        if let sliding = record.sliding { record.expires = now + sliding }
        setAccess(of: key, record, &state)
        let urgent = state.touchCount >= Self.urgentTouchCount
        return (record, state.scheduleFlush(urgent: urgent, delay: max(delay, Self.accessFlushDelay), onlyAccessDates: true))
    }

    /// Past this many entries read since the last flush, their dates are written at once
    /// rather than after ``accessFlushDelay``: the memory they wait in stays bounded (a few
    /// tens of megabytes at most, about a hundred bytes each) however fast the cache is read.
    ///
    /// Fewer would cost reads: in a large cache read at random, a flush of dates rewrites
    /// about one manifest page per date until most pages hold several, and reads slow down
    /// while it is checkpointed. At a million entries read at random, half this many made
    /// reads about 8% slower, and a quarter about 15%.
    static let urgentTouchCount = 262_144

    /// How long the last-access dates (and sliding deadlines) of reads wait before a flush
    /// writes them, when nothing else is staged: one ``accessDateResolution``, the precision
    /// they are kept to, or ``Configuration/flushDelay`` when longer. A flush for a write
    /// takes them along sooner.
    ///
    /// Every date written rewrites the manifest page of its entry. In a large cache read at
    /// random, a flush every 0.1 s rewrote nearly one page per read, and the reads that
    /// followed found those pages in the write-ahead log; a second's worth of reads shares
    /// the pages it rewrites. A crash loses at most that second of dates: trimming then
    /// takes those entries as read a second earlier.
    static let accessFlushDelay: TimeInterval = accessDateResolution

    /// Puts `record`, the entry of `key` with its last-access date or sliding deadline
    /// changed, in what the next flush writes: its staged write, or the touched dates.
    private func setAccess(of key: String, _ record: DiskRecord, _ state: inout DiskCacheState) {
        if !state.pending.isEmpty, var change = state.pending[key], case .write(_, let inlineValue) = change.value {
            // A new sequence number: a flush already writing the older record must not
            // clear this one, or the new access date and deadline would never be saved.
            state.sequence += 1
            change.value = .write(record, inlineValue: inlineValue)
            change.sequence = state.sequence
            state.pending[key] = change
        } else if let location = record.location, record.sliding == nil {
            state.touchedLocations[location.packed] = record.accessed
        } else {
            state.touched[key] = AccessChange(accessed: record.accessed, expires: record.expires)
        }
    }

    /// Whether `key` has a value that has not expired. Does not count as an access.
    ///
    /// ```swift
    /// if !cache.contains("a.png") { download() }
    /// ```
    public func contains(_ key: String) -> Bool {
        info(forKey: key) != nil
    }

    /// What the cache knows about `key`, without reading its value or counting an access.
    public func info(forKey key: String) -> EntryInfo? {
        guard let key = try? StoredKey.normalized(key) else { return nil }
        return record(forKey: key)?.info(key: key)
    }

    /// The live record of a normalized key.
    private func record(forKey key: String) -> DiskRecord? {
        let now = self.now
        if isReadOnly {
            guard let row = reader.row(forKey: key), isLive(row.record, at: now) else { return nil }
            return row.record
        }
        return state.withLock { state in
            guard !state.isClosed, let record = state.current(key, reader), isLive(record, at: now) else { return nil }
            return record
        }
    }

    /// The file holding the value of `key`, or `nil` when the value is missing, expired or
    /// stored inline.
    ///
    /// ```swift
    /// if let url = cache.fileURL(for: "movie.mp4") { player.play(url) }
    /// ```
    ///
    /// Values of at most ``Configuration/inlineThreshold`` bytes (20 KB by default) are records
    /// of the value log and have no file: a cache whose values are handed out as files (to a
    /// player, a share sheet) sets `inlineThreshold = 0`.
    ///
    /// The file belongs to the cache: read it, do not modify it. It may be deleted by a
    /// later removal or trim.
    public func fileURL(for key: String) -> URL? {
        guard let key = try? StoredKey.normalized(key), let name = record(forKey: key)?.file else { return nil }
        return URL(fileURLWithPath: filePath(named: name), isDirectory: false)
    }

    private func readOnlyEntry(forKey key: String) -> (data: Data, record: DiskRecord, key: String)? {
        guard let row = reader.row(forKey: key), isLive(row.record, at: now) else { return nil }
        if let location = row.record.location {
            var key = key
            guard case .record(let logged) = key.withUTF8({ valueLog.read(location, key: $0) }) else { return nil }
            return (logged.value, row.record, key)
        }
        let data = row.inlineValue ?? row.record.file.flatMap { try? FileStore.read(atPath: filePath(named: $0)) }
        return data.map { ($0, row.record, key) }
    }

    /// Whether an entry may be returned: not expired, and not older than ``Configuration/ageLimit``.
    func isLive(_ record: DiskRecord, at now: Double) -> Bool {
        if record.isExpired(at: now) { return false }
        if let ageLimit = configuration.ageLimit, record.created + ageLimit <= now { return false }
        return true
    }
}
