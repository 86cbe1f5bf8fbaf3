import Foundation
import StashCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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
    ///   - key: Any non-empty string of at most ``maxKeyLength`` bytes (a URL, a path, …).
    ///   - expiry: Overrides ``Configuration/defaultExpiry``.
    ///   - metadata: At most ``maxMetadataSize`` bytes kept beside the value.
    /// - throws: ``StashCore/StashError/Code/invalidKey``,
    ///   ``StashCore/StashError/Code/unsupportedValue`` (metadata too large),
    ///   ``StashCore/StashError/Code/diskFull``, ``StashCore/StashError/Code/readOnly``,
    ///   ``StashCore/StashError/Code/closed``. On error the previous value is kept.
    public func set(_ data: Data, forKey key: String, expiry: Expiry? = nil, metadata: Data? = nil) throws {
        try DiskCache.validate(key: key)
        if let metadata, metadata.count > DiskCache.maxMetadataSize {
            throw StashError(.unsupportedValue, "metadata of \(metadata.count) bytes exceeds \(DiskCache.maxMetadataSize)", key: key)
        }
        try checkWritable(key: key)
        let now = self.now
        let expiry = expiry ?? configuration.defaultExpiry
        let expires = expiry.deadline(from: Date(timeIntervalSince1970: now))?.timeIntervalSince1970
        if let expires, expires <= now {
            removeValue(forKey: key)
            return
        }
        let threshold = configuration.inlineThreshold
        let isInline = threshold > 0 && data.count <= threshold
        var sliding: Double?
        if case .sliding(let seconds) = expiry { sliding = seconds }
        let record = DiskRecord(
            size: data.count, isInline: isInline, created: now, accessed: now,
            expires: expires, sliding: sliding, metadata: metadata
        )
        if isInline {
            try stage(key) { $0.stageWrite(key, record, inlineValue: data) }
        } else {
            try writeFile(data, key: key) { try self.stage(key) { $0.stageWrite(key, record, inlineValue: nil) } }
        }
    }

    /// Removes the value of `key`, if any. The file of a file-backed value is deleted once
    /// the removal is in the manifest.
    ///
    /// ```swift
    /// cache.removeValue(forKey: "feed")
    /// ```
    public func removeValue(forKey key: String) {
        guard !isReadOnly else { return }
        try? stage(key) { $0.stageRemoval(key) }
    }

    static func validate(key: String) throws {
        if key.isEmpty { throw StashError(.invalidKey, "a cache key may not be empty", key: key) }
        if key.utf8.count > maxKeyLength {
            throw StashError(.invalidKey, "a cache key may not be longer than \(maxKeyLength) bytes", key: String(key.prefix(64)) + "…")
        }
    }

    private func checkWritable(key: String) throws {
        if isReadOnly {
            throw StashError(.readOnly, "this DiskCache was opened read-only", path: directory.path, key: key)
        }
    }

    /// Applies a change to the state and schedules the flush that will write it.
    private func stage(_ key: String, _ change: (inout DiskCacheState) -> Void) throws {
        let limits = configuration.limits
        let delay = try state.withLock { state throws(StashError) -> TimeInterval? in
            guard !state.isClosed else { throw StashError(.closed, "this DiskCache was closed", path: directory.path, key: key) }
            change(&state)
            if let maxBytes = limits.maxBytes, state.totalSize > maxBytes { state.needsTrim = true }
            if let maxCount = limits.maxCount, state.index.count > maxCount { state.needsTrim = true }
            let urgent = state.pendingBytes > DiskCache.urgentPendingBytes || state.pending.count > DiskCache.urgentPendingCount
            return state.scheduleFlush(urgent: urgent || state.needsTrim, delay: configuration.flushDelay)
        }
        if let delay { scheduleBackgroundFlush(after: delay) }
    }

    /// Writes a file-backed value: a temporary file, then, with ``files`` held, the rename
    /// to its final name and the staging of its row, so that no flush deletes the new file.
    private func writeFile(_ data: Data, key: String, thenStage stageRow: () throws -> Void) throws {
        let destination = fileURL(forFileOf: key)
        let temporary = filesDirectory.appendingPathComponent(
            "." + destination.lastPathComponent + "." + String(UInt64.random(in: 0...UInt64.max), radix: 36) + ".tmp"
        )
        do {
            try DiskCache.writeTemporary(data, to: temporary.path)
        } catch StashError.Code.notFound {
            // Someone deleted the files folder under a running cache: make it again.
            try FileStore.createFolder(filesDirectory)
            try DiskCache.writeTemporary(data, to: temporary.path)
        }
        do {
            try files.withLock {
                guard rename(temporary.path, destination.path) == 0 else {
                    throw StashError.posix("rename", path: destination.path)
                }
                try stageRow()
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    private static func writeTemporary(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StashError.posix("create file", path: path) }
        do {
            try FileStore.writeAll(fd, data, path: path)
        } catch {
            SystemCalls.close(fd)
            unlink(path)
            throw error
        }
        guard SystemCalls.close(fd) == 0 else {
            let error = StashError.posix("close", path: path)
            unlink(path)
            throw error
        }
    }

    /// Past this many staged bytes or changes, a flush starts at once instead of waiting for
    /// ``Configuration/flushDelay``, which bounds the memory staging takes.
    static let urgentPendingBytes = 4 * 1024 * 1024
    static let urgentPendingCount = 4096
}

extension DiskCacheState {
    /// Marks a flush as scheduled and says after how long, or `nil` when one already is.
    mutating func scheduleFlush(urgent: Bool, delay: TimeInterval) -> TimeInterval? {
        switch flush {
        case .immediate:
            return nil
        case .delayed:
            guard urgent else { return nil }
            flush = .immediate
            return 0
        case .idle:
            flush = urgent ? .immediate : .delayed
            return urgent ? 0 : delay
        }
    }
}
