public import Foundation
public import StashCore

extension DiskCache {
    /// The longest key accepted, in UTF-8 bytes.
    public static let maxKeyLength = 4096
    /// The largest metadata blob accepted, in bytes.
    public static let maxMetadataSize = 64 * 1024

    /// Stores `data` under `key`, replacing any previous value.
    ///
    /// ```swift
    /// try cache.set(json, forKey: "feed")
    /// try cache.set(png, forKey: "a.png", expiry: .sliding(3600), metadata: Data("image/png".utf8))
    /// ```
    ///
    /// A value of at most ``Configuration/inlineThreshold`` bytes is staged and written to the
    /// manifest by the next background flush; a larger one is written to its file before
    /// this returns. Either way readers see it at once. A write past a limit schedules a
    /// background trim; it does not wait for it. An expiry already past removes the key.
    ///
    /// - parameters:
    ///   - data: The value.
    ///   - key: Any non-empty string of at most ``maxKeyLength`` bytes (a URL, a path, …)
    ///     without NUL. Keys follow Swift's `String` equality: `"café"` precomposed or
    ///     decomposed is one key, saved in its NFC form.
    ///   - expiry: Overrides ``Configuration/defaultExpiry``.
    ///   - metadata: At most ``maxMetadataSize`` bytes kept beside the value.
    /// - throws: ``/StashCore/StashError/Code/invalidKey``,
    ///   ``/StashCore/StashError/Code/unsupportedValue`` (metadata too large),
    ///   ``/StashCore/StashError/Code/diskFull``, ``/StashCore/StashError/Code/readOnly``,
    ///   ``/StashCore/StashError/Code/closed``. On error the previous value is kept.
    ///   `.diskFull` also comes back, without touching the disk, from every `set` after a
    ///   flush failed for lack of space, until a flush succeeds (see ``flush()``).
    ///
    /// **What a returned `set` guarantees.** The value is readable at once by this cache.
    /// A file-backed value is in its file; its manifest row, like an inline value, is
    /// staged and committed by the next flush (within ``Configuration/flushDelay``), so a
    /// crash of the process before that flush loses it. After `try await flush()` (or
    /// `try close()`) returns, every acknowledged value survives a crash of the process.
    public func set(_ data: Data, forKey key: String, expiry: ExpiryPolicy? = nil, metadata: Data? = nil) throws {
        let key = try DiskCache.storedKey(key)
        let threshold = configuration.inlineThreshold
        let isInline = threshold > 0 && data.count <= min(threshold, ValueLog.largestValue)
        guard let record = try newRecord(size: data.count, key: key, inFile: !isInline, expiry: expiry, metadata: metadata) else {
            removeValue(forKey: key)
            return
        }
        if isInline {
            try stage(key, isWrite: true) { $0.stageWrite(key, record, inlineValue: data) }
        } else {
            try writeFile(data, named: record.file ?? DiskFileName.unique(forKey: key), key: key) {
                try self.stage(key, isWrite: true) { $0.stageWrite(key, record, inlineValue: nil) }
            }
        }
    }

    /// Removes the value of `key`, if any. The file of a file-backed value is deleted once
    /// the removal is in the manifest.
    ///
    /// ```swift
    /// cache.removeValue(forKey: "feed")
    /// ```
    public func removeValue(forKey key: String) {
        guard !isReadOnly, let key = try? StoredKey.normalized(key) else { return }
        try? stage(key, isWrite: false) { $0.stageRemoval(key, reader: reader) }
    }

    /// The form of `key` the cache saves and looks up (``StashCore/StoredKey``): its NFC
    /// normalization, after refusing an empty key, a NUL character or more than
    /// ``maxKeyLength`` bytes with ``/StashCore/StashError/Code/invalidKey``.
    static func storedKey(_ key: String) throws -> String {
        if key.isEmpty { throw StashError(.invalidKey, "a cache key may not be empty", key: key) }
        let stored = try StoredKey.normalized(key)
        if stored.utf8.count > maxKeyLength {
            throw StashError(.invalidKey, "a cache key may not be longer than \(maxKeyLength) bytes", key: String(key.prefix(64)) + "…")
        }
        return stored
    }

    /// The row for a new value of `size` bytes under `key` (in its file when `inFile`), after
    /// checking that the cache takes writes and `metadata` fits; `nil` when `expiry` is
    /// already past (the key is then to be removed).
    func newRecord(size: Int, key: String, inFile: Bool, expiry: ExpiryPolicy?, metadata: Data?) throws -> DiskRecord? {
        if let metadata, metadata.count > DiskCache.maxMetadataSize {
            throw StashError(.unsupportedValue, "metadata of \(metadata.count) bytes exceeds \(DiskCache.maxMetadataSize)", key: key)
        }
        try checkWritable(key: key)
        let now = self.now
        let expiry = expiry ?? configuration.defaultExpiry
        let expires = expiry.deadline(from: Date(timeIntervalSince1970: now))?.timeIntervalSince1970
        if let expires, expires <= now { return nil }
        var sliding: Double?
        if case .sliding(let seconds) = expiry { sliding = seconds }
        return DiskRecord(
            size: size, file: inFile ? DiskFileName.unique(forKey: key) : nil, created: now, accessed: now,
            expires: expires, sliding: sliding, metadata: metadata
        )
    }

    private func checkWritable(key: String?) throws {
        if isReadOnly {
            throw StashError(.readOnly, "this DiskCache was opened read-only", path: directory.path, key: key)
        }
    }

    /// Applies a change to the state and schedules the flush that will write it. A write is
    /// refused while the disk is full (a removal is not: it frees space).
    func stage(_ key: String, isWrite: Bool, _ change: (inout DiskCacheState) -> Void) throws {
        let limits = configuration.limits
        let delay = try state.withLock { state throws(StashError) -> TimeInterval? in
            try checkAccepts(state, key: key, isWrite: isWrite)
            change(&state)
            // Over a limit by the figures counting unknown replaced rows as absent: exact ones
            // decide (each replaced row is looked up once).
            if Self.exceedsLimits(state, limits) {
                state.resolve(reader)
                if Self.exceedsLimits(state, limits) { state.needsTrim = true }
            }
            let urgent = state.pendingBytes > DiskCache.urgentPendingBytes || state.pending.count > DiskCache.urgentPendingCount
            return state.scheduleFlush(urgent: urgent || state.needsTrim, delay: configuration.flushDelay)
        }
        if let delay { scheduleBackgroundFlush(after: delay) }
    }

    /// Throws when the cache takes no change now: closed, or (for writes) suspended or out of
    /// disk space since the last flush failed for lack of it.
    func checkAccepts(_ state: DiskCacheState, key: String?, isWrite: Bool) throws(StashError) {
        guard !state.isClosed else { throw StashError(.closed, "this DiskCache was closed", path: directory.path, key: key) }
        if isWrite, state.suspension != nil {
            throw StashError(.suspended, "this DiskCache is suspended: it takes writes again after resume()", path: directory.path, key: key)
        }
        if isWrite, let failure = state.diskFull {
            throw StashError(
                .diskFull,
                "the disk of this cache is full: a flush failed for lack of space (\(failure.reason)); writes are refused until a flush succeeds",
                path: failure.path ?? directory.path, key: key, errno: failure.posixCode
            )
        }
    }

    /// Writes a file-backed value with ``StashCore/FileStore/StagedFile``: a temporary file,
    /// then the commit of ``commitStaged(_:key:thenStage:)``.
    private func writeFile(_ data: Data, named name: String, key: String, thenStage stageRow: () throws -> Void) throws {
        let destination = filesDirectory.appendingPathComponent(name, isDirectory: false)
        let file = try inFilesFolder(key: key) { try FileStore.StagedFile(data, for: destination, durability: .processSafe) }
        try commitStaged(file, key: key, thenStage: stageRow)
    }

    /// `make`'s new file in the files folder, once the cache takes writes; a files folder
    /// someone deleted under a running cache is made again.
    func inFilesFolder<File>(key: String?, _ make: () throws -> File) throws -> File {
        try checkWritable(key: key)
        try state.withLock { state throws(StashError) in try checkAccepts(state, key: key, isWrite: true) }
        do {
            return try make()
        } catch StashError.Code.notFound {
            try FileStore.createFolder(filesDirectory)
            return try make()
        }
    }

    /// Renames `file` into place and stages its row with ``files`` held, so that no flush
    /// deletes the new file; checked again just before the rename, since a file must not
    /// replace the one of the current row unless the new row is staged with it. On error
    /// the file is deleted and the previous value kept.
    func commitStaged(_ file: FileStore.StagedFile, key: String, thenStage stageRow: () throws -> Void) throws {
        do {
            try files.withLock {
                try state.withLock { state throws(StashError) in try checkAccepts(state, key: key, isWrite: true) }
                try file.commit()
                try stageRow()
            }
        } catch {
            file.discard()
            throw error
        }
    }

    /// Past this many staged bytes or changes, a flush starts at once instead of waiting for
    /// ``Configuration/flushDelay``, which bounds the memory staging takes.
    /// Whether the count or size of `state` is over `limits`.
    static func exceedsLimits(_ state: DiskCacheState, _ limits: Limits) -> Bool {
        if let sizeLimit = limits.sizeLimit, state.totalSize > sizeLimit { return true }
        if let countLimit = limits.countLimit, state.count > countLimit { return true }
        return false
    }

    static let urgentPendingBytes = 4 * 1024 * 1024
    static let urgentPendingCount = 4096
}

extension DiskCacheState {
    /// Marks a flush as scheduled and says after how long, or `nil` when one already is
    /// (`onlyAccessDates`: for the last-access dates of reads, which a flush scheduled for
    /// anything else writes too).
    mutating func scheduleFlush(urgent: Bool, delay: TimeInterval, onlyAccessDates: Bool = false) -> TimeInterval? {
        switch flush {
        case .immediate:
            return nil
        case .delayed:
            guard urgent else { return nil }
            flush = .immediate
            return 0
        case .accessDates:
            if urgent {
                flush = .immediate
                return 0
            }
            guard !onlyAccessDates else { return nil }
            // An earlier flush for this change; the later one finds less or nothing to write.
            flush = .delayed
            return delay
        case .idle:
            flush = urgent ? .immediate : onlyAccessDates ? .accessDates : .delayed
            return urgent ? 0 : delay
        }
    }
}
