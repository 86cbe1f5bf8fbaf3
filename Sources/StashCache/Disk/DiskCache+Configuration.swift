public import Foundation
public import StashCore
public import Logging

extension DiskCache {
    /// How a disk cache stores, bounds and flushes its entries.
    ///
    /// ```swift
    /// var configuration = DiskCache.Configuration()
    /// configuration.sizeLimit = 50 * 1024 * 1024
    /// configuration.ageLimit = 7 * 24 * 3600
    /// configuration.inlineThreshold = 0            // every value in its own file
    /// configuration.logger = logger                // recoveries and background failures
    /// let cache = try DiskCache(directory: folder, configuration: configuration)
    /// ```
    ///
    /// Limits are `nil` for "unbounded" and are restored by trimming (see ``trimRatio``).
    public struct Configuration: Sendable {
        /// Values of at most this many bytes are records of the cache's value log; larger ones
        /// get a file. `0` puts every value in a file. Default: 20 KB (one `pread` of a record
        /// costs less than opening a file). Values over 256 MB get a file whatever it says.
        public var inlineThreshold: Int = 20 * 1024
        /// The most bytes the values may take (the manifest and file-system overhead aside).
        /// Default: 256 MB.
        public var sizeLimit: Int? = 256 * 1024 * 1024
        /// The most entries kept. Default: no limit.
        public var countLimit: Int?
        /// Seconds after its write at which an entry is removed, whatever its own expiry
        /// says. Default: no limit.
        public var ageLimit: TimeInterval?
        /// When the volume has less free space than this many bytes, trimming halves the
        /// cache (by ``trimRatio``) even if no other limit is reached.
        public var minimumFreeDiskSpace: Int64?
        /// When a limit is exceeded, trimming removes least recently used entries until the
        /// cache is at this fraction of the limit (SDImageCache's one half by default), so
        /// that a full cache is not trimmed again on every write.
        public var trimRatio: Double = 0.5
        /// The expiry of entries written without one.
        public var defaultExpiry: ExpiryPolicy = .never
        /// Where "now" comes from for creation, access and expiry dates.
        public var clock: any StashClock = SystemClock()
        /// How long writes stay staged in memory before a background flush writes them to the
        /// manifest in one transaction. A crash loses at most the writes of this window.
        public var flushDelay: TimeInterval = 0.1
        /// How often the background flush also removes expired and too-old entries (``DiskCache/removeExpired()``).
        public var expiryInterval: TimeInterval = 60
        /// Whether this process writes the cache or only reads what the writer flushed.
        public var access: Access = .readWrite
        /// Where recoveries (a rebuilt manifest, reconciled files: `warning`) and failures of
        /// background work (`error`) are reported. Default: a logger that discards
        /// everything, as swift-log advises for libraries; ``DiskCache/recovery`` tells what
        /// opening repaired either way.
        public var logger: Logger = .stashSilent

        /// The default configuration.
        public init() {}

        /// The limits trimming restores, read together.
        var limits: Limits {
            Limits(sizeLimit: sizeLimit, countLimit: countLimit, ageLimit: ageLimit, minimumFreeDiskSpace: minimumFreeDiskSpace)
        }
    }

    /// The bounds of a disk cache, as its configuration sets them. `nil` means unbounded.
    struct Limits: Sendable, Hashable {
        var sizeLimit: Int?
        var countLimit: Int?
        var ageLimit: TimeInterval?
        var minimumFreeDiskSpace: Int64?
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
