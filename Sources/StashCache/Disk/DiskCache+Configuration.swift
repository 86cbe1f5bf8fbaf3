public import Foundation
public import StashCore

extension DiskCache {
    /// How a disk cache stores, bounds and flushes its entries.
    ///
    /// ```swift
    /// var configuration = DiskCache.Configuration()
    /// configuration.limits.maxBytes = 50 * 1024 * 1024
    /// configuration.limits.maxAge = 7 * 24 * 3600
    /// configuration.inlineThreshold = 0            // every value in its own file
    /// let cache = try DiskCache(directory: folder, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// Values of at most this many bytes live inside the manifest; larger ones get a file.
        /// `0` puts every value in a file. Default: 20 KB (SQLite reads small blobs faster
        /// than the file system opens files).
        public var inlineThreshold: Int = 20 * 1024
        /// The bounds that trimming restores.
        public var limits: Limits = Limits()
        /// When a limit is exceeded, trimming removes least recently used entries until the
        /// cache is at this fraction of the limit (SDImageCache's one half by default), so
        /// that a full cache is not trimmed again on every write.
        public var trimRatio: Double = 0.5
        /// The expiry of entries written without one.
        public var defaultExpiry: Expiry = .never
        /// Where "now" comes from for creation, access and expiry dates.
        public var clock: any StashClock = SystemClock()
        /// How long writes stay staged in memory before a background flush writes them to the
        /// manifest in one transaction. A crash loses at most the writes of this window.
        public var flushDelay: TimeInterval = 0.1
        /// How often the background flush also sweeps expired and too-old entries.
        public var sweepInterval: TimeInterval = 60
        /// Whether this process writes the cache or only reads what the writer flushed.
        public var access: Access = .readWrite
        /// Where recoveries (a rebuilt manifest, reconciled files) and background failures
        /// are reported. Default: one line on standard error.
        public var log: @Sendable (String) -> Void = { line in
            FileHandle.standardError.write(Data(("StashCache: " + line + "\n").utf8))
        }

        /// The default configuration.
        public init() {}
    }

    /// The bounds of a disk cache. `nil` means unbounded.
    ///
    /// ```swift
    /// let limits = DiskCache.Limits(maxBytes: 100 << 20, maxCount: 10_000, maxAge: 30 * 86_400)
    /// ```
    public struct Limits: Sendable, Hashable {
        /// The total size of the values, in bytes. Default: 256 MB.
        public var maxBytes: Int?
        /// The number of entries.
        public var maxCount: Int?
        /// How long after it was written an entry is removed, in seconds.
        public var maxAge: TimeInterval?
        /// When the volume has less free space than this, trimming halves the cache (by
        /// ``Configuration/trimRatio``) even if no other limit is reached.
        public var minimumFreeDiskSpace: Int64?

        /// Bounds; by default 256 MB and nothing else.
        public init(maxBytes: Int? = 256 * 1024 * 1024, maxCount: Int? = nil, maxAge: TimeInterval? = nil, minimumFreeDiskSpace: Int64? = nil) {
            self.maxBytes = maxBytes
            self.maxCount = maxCount
            self.maxAge = maxAge
            self.minimumFreeDiskSpace = minimumFreeDiskSpace
        }
    }

    /// Who may write. Only one process writes a cache folder at a time; a file lock
    /// enforces it.
    public enum Access: Sendable, Hashable {
        /// Read and write. Opening fails with ``/StashCore/StashError/Code/locked`` while
        /// another process (or another `DiskCache` in this one) writes the folder.
        case readWrite
        /// A read-only view of what the writer has flushed: writes throw
        /// ``/StashCore/StashError/Code/readOnly``, reads never extend sliding expiry, and no
        /// housekeeping runs. Works while a writer is open.
        case readOnly
    }
}
