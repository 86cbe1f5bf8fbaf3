import Foundation
import StashCore
import Logging

extension DiskCache {
    /// Writes every staged change to the manifest now, in one transaction, and returns once
    /// it is committed: from then on a crash of the process loses none of it.
    ///
    /// ```swift
    /// try cache.set(data, forKey: "draft")
    /// try await cache.flush()
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/diskFull`` and other manifest errors; the
    ///   changes stay staged (and readable) and the next flush retries them.
    public func flush() async throws {
        guard !isReadOnly else { return }
        try await onQueue { try self.flushNow() }
    }

    /// Runs `body` on the background queue, after the work queued before it.
    func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    func scheduleBackgroundFlush(after delay: TimeInterval) {
        // Weak: a scheduled flush must not keep a released cache (and its writer lock) alive;
        // deinit flushes what is staged instead.
        let work: @Sendable () -> Void = { [weak self] in self?.housekeep(force: false) }
        if delay <= 0 {
            queue.async(execute: work)
        } else {
            queue.asyncAfter(deadline: .now() + delay, execute: work)
        }
    }

    /// The background flush: writes staged changes, then trims or sweeps when due. A failure
    /// is logged once (not again until a flush succeeds) and retried with a growing delay:
    /// 1 s, 2 s, 4 s… up to ``maximumRetryDelay``; callers' data stays staged meanwhile.
    func housekeep(force: Bool) {
        // Suspended, the cache holds no lock and writes nothing: resume() flushes.
        guard !state.withLock({ $0.isClosed || $0.suspension != nil }) else { return }
        do {
            try flushNow()
            let (trimDue, sweepDue) = state.withLock { state in
                (state.needsTrim, now - state.lastSweep >= configuration.expiryInterval)
            }
            if force || trimDue || sweepDue || isLowOnDiskSpace() {
                try stageTrim(expiredOnly: false)
                try flushNow()
            }
            try compactIfDue()
        } catch {
            let (failures, delay) = state.withLock { state -> (Int, TimeInterval?) in
                state.failedFlushes += 1
                let backoff = min(DiskCache.maximumRetryDelay, max(1, configuration.flushDelay) * pow(2, Double(min(state.failedFlushes - 1, 16))))
                return (state.failedFlushes, state.scheduleFlush(urgent: false, delay: backoff))
            }
            if failures == 1 {
                configuration.logger.error("background flush of \(directory.path) failed: \(error); retrying with a growing delay, not logged again until a flush succeeds")
            }
            if let delay { scheduleBackgroundFlush(after: delay) }
        }
    }

    /// The longest wait between two retries of a failed background flush, in seconds.
    static let maximumRetryDelay: TimeInterval = 60

    /// Writes what is staged. Runs on ``queue`` only.
    ///
    /// - throws: ``/StashCore/StashError/Code/suspended`` while the cache is suspended (it
    ///   holds no writer lock then), unless `suspending` (the flush of ``suspend()``).
    func flushNow(suspending: Bool = false) throws {
        var snapshot: [(key: String, change: PendingChange)] = []
        var batch = try state.withLock { state throws(StashError) -> FlushBatch in
            if state.suspension != nil, !suspending {
                throw StashError(.suspended, "this DiskCache is suspended: it writes its manifest again after resume()", path: directory.path)
            }
            state.flush = .idle
            var batch = FlushBatch()
            snapshot.reserveCapacity(state.pending.count)
            for (key, change) in state.pending { snapshot.append((key, change)) }
            // Taken whole, not copied, and the room they took made again (a table left empty,
            // not filled): the lock is held for as little as the number of entries read
            // allows, and the reads that follow do not grow the table step by step under it.
            swap(&batch.touches, &state.touched)
            state.touched.reserveCapacity(batch.touches.count)
            swap(&batch.touchedLocations, &state.touchedLocations)
            state.touchedLocations.reserveCapacity(batch.touchedLocations.count)
            batch.hits = state.unflushedHits
            batch.misses = state.unflushedMisses
            state.unflushedHits = 0
            state.unflushedMisses = 0
            return batch
        }
        snapshot = ManifestKeyOrder.positions(of: snapshot.map(\.key)).map { snapshot[$0] }
        for (key, change) in snapshot {
            switch change.value {
            case .write(let record, let inlineValue): batch.writes.append((key, record, inlineValue, nil))
            case .remove: batch.removals.append(key)
            }
        }
        guard !batch.isEmpty else {
            flushSucceeded()
            return
        }
        let generation: Int64?
        do {
            try appendRecords(of: &batch)
            try syncFiles(of: batch)
            try learnReplacedRows(&snapshot)
            for (_, change) in snapshot {
                let base = change.base ?? .none
                let (exists, size) = change.value.result
                batch.addedCount += (exists ? 1 : 0) - (base.exists ? 1 : 0)
                batch.addedBytes += size - base.size
            }
            generation = try manifest.apply(batch)
        } catch {
            state.withLock { state in
                // Dates not written are written next time, unless the entry changed meanwhile
                // (its staged change carries its own) or was read again (newer dates).
                for (key, access) in batch.touches where state.pending[key] == nil && state.touched[key] == nil {
                    state.touched[key] = access
                }
                for (location, accessed) in batch.touchedLocations where state.touchedLocations[location] == nil {
                    state.touchedLocations[location] = accessed
                }
                state.unflushedHits += batch.hits
                state.unflushedMisses += batch.misses
                if let error = error as? StashError, error.code == .diskFull { state.diskFull = error }
            }
            throw error
        }
        // The reader's lookups see the commit before `settle` forgets the staged changes it
        // holds. When the WAL is due a checkpoint (``Manifest/needsCheckpoint``): from the
        // latest commit, the reader keeps no frame from it, so it copies them all back; read
        // again from there, the reader keeps none from the next commit either, which can
        // then start the WAL over. Its lookups run in its read transaction meanwhile.
        reader.renew()
        if manifest.needsCheckpoint {
            do {
                try manifest.checkpoint()
            } catch {
                configuration.logger.notice("checkpoint of \(directory.path) failed: \(error); the next flush tries again")
            }
            reader.renew()
        }
        settle(snapshot, batch, generation: generation)
        flushSucceeded()
    }

    /// Appends the records of the batch's small values to the value log, before the commit,
    /// in parts of about a segment (``ValueLog/partSize``, or one record when larger),
    /// each encoded just before its append; notes where each record went and each segment's
    /// new end. However many large values a flush commits, no append is too large for a
    /// segment's 32-bit offsets, and the flush holds a copy of one part at a time.
    private func appendRecords(of batch: inout FlushBatch) throws {
        var part: [UInt8] = []
        var members: [Int] = []
        func appendPart() throws {
            guard !part.isEmpty else { return }
            let (segment, offset) = try valueLog.append(part)
            for index in members {
                batch.writes[index].location?.segment = segment
                batch.writes[index].location?.offset += offset
            }
            batch.segmentEnds[segment] = offset + part.count
            part.removeAll(keepingCapacity: true)
            members.removeAll(keepingCapacity: true)
        }
        for index in batch.writes.indices where batch.writes[index].record.isInline {
            if part.count >= valueLog.partSize { try appendPart() }
            let write = batch.writes[index]
            let start = part.count
            let span = ValueLogRecord.append(key: write.key, write.record, value: write.inlineValue ?? Data(), to: &part)
            batch.writes[index].location = ValueLocation(segment: 0, offset: start, span: span)
            members.append(index)
        }
        try appendPart()
    }

    /// fsyncs the file of each file-backed value the batch commits, and then their folder,
    /// before the commit: a row the manifest may keep after a power cut never names a file
    /// that came back empty, torn or missing (ext4 commits a new file's name before its
    /// bytes). A file gone meanwhile (a later write replaced it) is skipped.
    private func syncFiles(of batch: FlushBatch) throws {
        var synced = false
        for write in batch.writes {
            guard let name = write.record.file else { continue }
            let path = filePath(named: name)
            let fd = SystemCalls.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                if errno == ENOENT { continue }
                throw StashError.posix("open", path: path)
            }
            defer { SystemCalls.close(fd) }
            guard SystemCalls.fsync(fd, path: path) == 0 else { throw StashError.posix("fsync", path: path) }
            synced = true
        }
        if synced { try FileStore.syncFolder(filesDirectory.path) }
    }

    /// Looks up the rows that the batch's writes staged without knowing them replace, before
    /// it is written (the manifest changes on ``queue`` only, so they are the rows replaced):
    /// the state's count and size become exact, and the file of a replaced row is deleted
    /// after the commit.
    private func learnReplacedRows(_ snapshot: inout [(key: String, change: PendingChange)]) throws {
        let unknown = snapshot.indices.filter { snapshot[$0].change.base == nil }
        guard !unknown.isEmpty else { return }
        let bases = try manifest.bases(of: unknown.map { snapshot[$0].key })
        state.withLock { state in
            for index in unknown {
                let key = snapshot[index].key
                let base = bases[key] ?? .none
                snapshot[index].change.base = base
                state.learn(key, base: base)
            }
        }
    }

    /// Ends a run of failed flushes: writes are accepted again, and a recovery is logged.
    private func flushSucceeded() {
        let failures = state.withLock { state -> Int in
            defer {
                state.failedFlushes = 0
                state.diskFull = nil
            }
            return state.failedFlushes
        }
        if failures > 0 { configuration.logger.notice("flush of \(directory.path) succeeded again after \(failures) failed attempts") }
    }

    /// After a commit: forgets the staged changes it wrote (unless a newer change replaced
    /// them), files the locations of the records written in the ``LocationIndex`` (and
    /// drops those of the rows replaced by files or removed), and deletes the files no row
    /// names any more (``PendingChange/filesLeftByCommit``). The row is gone before its file,
    /// so a crash never leaves a row without a file.
    private func settle(_ snapshot: [(key: String, change: PendingChange)], _ batch: FlushBatch, generation: Int64?) {
        files.withLock {
            let obsoleteFiles = state.withLock { state -> [String] in
                if let generation { state.follow(batch, generation: generation) }
                var obsolete: [String] = []
                for (key, change) in snapshot {
                    if state.pending[key]?.sequence == change.sequence {
                        state.pending[key] = nil
                        if case .write(_, let inlineValue?) = change.value { state.pendingBytes -= inlineValue.count }
                    } else if state.pending[key] != nil {
                        // The newer change replaces the row just written.
                        switch change.value {
                        case .write(let record, _): state.pending[key]?.base = ManifestBase(record)
                        case .remove: state.pending[key]?.base = ManifestBase.none
                        }
                    }
                    obsolete += change.filesLeftByCommit
                }
                return obsolete
            }
            for name in obsoleteFiles { SystemCalls.unlink(filePath(named: name)) }
        }
    }
}
