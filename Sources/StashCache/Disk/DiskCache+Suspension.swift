import Foundation
import StashCore

extension DiskCache {
    /// Writes what is staged, then gives up every lock the cache holds between operations
    /// (the writer lock on `writer.lock`, and the read transaction that keeps lookups free of
    /// system calls), until ``resume()``. Call it when an app whose cache sits in an
    /// app-group container goes to the background: iOS terminates a suspended app that holds
    /// a file lock in a shared container (the `0xDEAD10CC` exception).
    ///
    /// ```swift
    /// // scenePhase became .background:
    /// try await cache.suspend()
    /// // scenePhase became .active:
    /// try cache.resume()
    /// ```
    ///
    /// While suspended, reads go on (each takes SQLite's read lock only while it runs),
    /// removals are staged for the flush that follows ``resume()`` (a removal whose entry
    /// another writer replaced or removed meanwhile is dropped: its newer value stays), and writes (``set(_:forKey:expiry:metadata:)``,
    /// ``adoptFile(at:forKey:expiry:metadata:)``, ``flush()``, ``trim()``, ``removeExpired()``,
    /// ``removeAll()``) throw ``/StashCore/StashError/Code/suspended``. Another process may
    /// become the folder's writer meanwhile (an extension, say). Idempotent; does nothing on
    /// a read-only view, which holds no lock between operations.
    ///
    /// **Crash safety.** Every write that returned before `suspend()` did survives a crash of
    /// the process while suspended: the flush wrote it to the manifest (nothing is fsynced, as
    /// for any flush of this disposable cache). What was staged while suspended (removals,
    /// access dates) is lost at such a crash, as unflushed work always is.
    ///
    /// **Thread safety.** Call it from any thread or task while others read and write: a write
    /// racing with it is either in its flush or throws ``/StashCore/StashError/Code/suspended``,
    /// never dropped silently. `suspend()`, ``resume()`` and ``isSuspended`` take turns on the
    /// cache's queue and lock.
    ///
    /// - throws: What the flush could not write (the cache then stays as it was, not
    ///   suspended).
    public func suspend() async throws {
        guard !isReadOnly else { return }
        try await onQueue { try self.suspendNow() }
    }

    /// Takes the writer lock back after ``suspend()`` and writes what was staged meanwhile.
    ///
    /// ```swift
    /// do { try cache.resume() } catch StashError.Code.locked { /* an extension writes it: retry later */ }
    /// ```
    ///
    /// Entries another writer committed meanwhile are seen, and the cache's count and size
    /// include them. Idempotent; does nothing on a cache that is not suspended. Thread-safe,
    /// like ``suspend()``; a crash after it loses what any running cache would (the writes of
    /// the last ``Configuration/flushDelay``).
    ///
    /// - throws: ``/StashCore/StashError/Code/locked`` when another process is the folder's
    ///   writer now; the cache stays suspended and a later call may succeed.
    ///   ``/StashCore/StashError/Code/notFound`` when the cache's folder was deleted or
    ///   replaced meanwhile; the cache stays suspended: open the folder again.
    public func resume() throws {
        guard !isReadOnly, !state.withLock({ $0.isClosed }) else { return }
        try queue.sync { try resumeNow() }
    }

    /// Whether the cache is between ``suspend()`` and ``resume()``: true from the moment
    /// ``suspend()`` starts refusing writes. Thread-safe; a fresh process's cache (after a crash
    /// while suspended, say) starts resumed.
    public var isSuspended: Bool { state.withLock { $0.suspension != nil } }

    /// ``suspend()``'s work, on ``queue``.
    private func suspendNow() throws {
        // Refuse writes first, with `files` held, so that no file is being renamed into place
        // for a row the flush below would miss.
        let already = files.withLock {
            state.withLock { state -> Bool in
                guard state.suspension == nil, !state.isClosed else { return true }
                state.suspension = ManifestCounters()
                return false
            }
        }
        guard !already else { return }
        do {
            try flushNow(suspending: true)
        } catch {
            state.withLock { $0.suspension = nil }
            throw error
        }
        reader.unpin()
        state.withLock { state in
            state.suspension = ManifestCounters(hits: state.hits, misses: state.misses, count: state.count, bytes: state.totalSize)
        }
        // Closed cleanly while the lock is held: the next writer may trust it.
        closeLocations()
        writerLock.withLock { $0?.unlock() }
    }

    /// The last flush, when the cache closes or is released: a suspended cache takes the
    /// writer lock back only when it staged removals meanwhile (access dates alone are not
    /// worth failing a close for). On ``queue``, or in `deinit`.
    func flushBeforeClosing() throws {
        if state.withLock({ $0.suspension != nil && $0.pending.isEmpty }) { return }
        try resumeNow()
        try flushNow()
    }

    /// ``resume()``'s work, on ``queue``.
    func resumeNow() throws {
        guard state.withLock({ $0.suspension != nil }) else { return }
        let taken = try writerLock.withLock { lock throws -> Bool in try lock?.tryLock(.exclusive) ?? false }
        guard taken else {
            throw StashError(.locked, "another DiskCache, in this process or another, became this cache's writer while it was suspended", path: directory.path)
        }
        // A folder deleted (or deleted and made again) meanwhile: the lock taken is on a file
        // no other writer locks, and the manifest open here is not the folder's any more.
        guard writerLock.withLock({ $0?.isStillAtItsPath ?? true }) else {
            writerLock.withLock { $0?.unlock() }
            throw StashError(.notFound, "the cache's folder was deleted or replaced while the cache was suspended: open it again", path: directory.path)
        }
        let committed: ManifestCounters
        do {
            committed = try manifest.counters()
            // Another writer may have appended, compacted or cut segments meanwhile.
            try valueLog.reconcile(committed: manifest.segments())
        } catch {
            writerLock.withLock { $0?.unlock() }
            throw error
        }
        let locations = DiskCache.openLocations(in: directory, counters: committed, logger: configuration.logger)
        let delay = state.withLock { state -> TimeInterval? in
            guard let base = state.suspension else { return nil }
            state.dropSupersededRemovals { try reader.lookUpRecord(forKey: $0) }
            // What changed here since the suspension (staged removals, hits) on top of what is
            // committed now, by this cache or by a writer that had the folder meanwhile.
            state.count = committed.count + (state.count - base.count)
            state.totalSize = committed.bytes + (state.totalSize - base.bytes)
            state.hits = committed.hits + (state.hits - base.hits)
            state.misses = committed.misses + (state.misses - base.misses)
            state.suspension = nil
            state.locations = locations
            guard !state.pending.isEmpty || state.touchCount > 0 else { return nil }
            return state.scheduleFlush(urgent: true, delay: configuration.flushDelay)
        }
        reader.pin()
        if let delay { scheduleBackgroundFlush(after: delay) }
    }
}
