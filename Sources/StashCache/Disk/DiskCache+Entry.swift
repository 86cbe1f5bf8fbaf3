public import Foundation
import StashCore

extension DiskCache {
    /// What the cache knows about one entry, without its value.
    ///
    /// ```swift
    /// for info in cache.entries() where info.storage == .file {
    ///     print(info.key, info.size, cache.fileURL(for: info.key)!.path)
    /// }
    /// ```
    public struct EntryInfo: Sendable, Hashable {
        /// Where a value lives.
        public enum Storage: String, Sendable, Hashable {
            /// A record of the cache's value log, beside other values (values up to the
            /// inline threshold).
            case inline
            /// In its own file, named after the hash of the key.
            case file
        }

        /// The key.
        public var key: String
        /// The size of the value in bytes.
        public var size: Int
        /// Where the value lives.
        public var storage: Storage
        /// When the value was written.
        public var createdAt: Date
        /// When the value was last written or read.
        public var lastAccessedAt: Date
        /// When it expires, or `nil` for never.
        public var expiresAt: Date?
        /// The small blob stored beside the value (HTTP headers, an ETag, a content type).
        public var metadata: Data?
    }

    /// A value read from the cache, with what the cache knows about it.
    ///
    /// ```swift
    /// if let entry = cache.entry(forKey: "avatar") {
    ///     let age = clock.now.timeIntervalSince(entry.info.createdAt)
    /// }
    /// ```
    public struct Entry: Sendable {
        /// The value.
        public var data: Data
        /// The key, dates, size and metadata.
        public var info: EntryInfo
    }

    /// Counts, sizes and hit figures of a cache.
    ///
    /// Hits and misses are kept across launches: the writer adds them to the manifest with
    /// each flush.
    public struct Statistics: Sendable, Hashable {
        /// The number of entries.
        public var count: Int
        /// The total size of the values, in bytes.
        public var totalSize: Int
        /// How many values live inside the manifest.
        public var inlineCount: Int
        /// How many values live in files.
        public var fileCount: Int
        /// Reads that found a value.
        public var hits: Int
        /// Reads that found nothing (or an expired value).
        public var misses: Int
        /// The creation date of the oldest entry.
        public var oldest: Date?
        /// The creation date of the newest entry.
        public var newest: Date?

        /// Hits over reads, or `nil` before the first read.
        public var hitRatio: Double? {
            hits + misses == 0 ? nil : Double(hits) / Double(hits + misses)
        }
    }
}

/// One entry of the in-memory index: everything but an inline value. Dates are seconds
/// since 1970, as the manifest stores them.
struct DiskRecord: Sendable, Hashable {
    var size: Int
    /// The name of the value's file in `files/`, as the manifest records it, or `nil` when
    /// the value is inline. Reads use it instead of hashing the key again.
    var file: String?
    var created: Double
    var accessed: Double
    var expires: Double?
    /// The sliding window in seconds, for sliding expiry.
    var sliding: Double?
    var metadata: Data?
    /// Where a committed row's small value is in the value log (``ValueLog``); `nil` for a
    /// value in a file, a staged write, or a row of a manifest from before the value log.
    var location: ValueLocation?

    /// The record without its location, to compare entries across compaction.
    var unlocated: DiskRecord {
        var record = self
        record.location = nil
        return record
    }

    /// Whether the value is a record (in the value log, or in a row from before it) rather
    /// than a file.
    var isInline: Bool { file == nil }

    func info(key: String) -> DiskCache.EntryInfo {
        DiskCache.EntryInfo(
            key: key, size: size, storage: isInline ? .inline : .file,
            createdAt: Date(timeIntervalSince1970: created),
            lastAccessedAt: Date(timeIntervalSince1970: accessed),
            expiresAt: expires.map(Date.init(timeIntervalSince1970:)), metadata: metadata
        )
    }

    func isExpired(at now: Double) -> Bool {
        if let expires { return expires <= now }
        return false
    }
}
