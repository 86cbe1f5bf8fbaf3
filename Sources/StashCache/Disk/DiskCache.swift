public import Foundation
public import StashCore
import Logging

/// A cache of `Data` values on disk: small values in a log of records, large ones in files,
/// both listed in an SQLite manifest, bounded by size, count, age and free disk space, with
/// expiry.
///
/// ```swift
/// let cache = try DiskCache(name: "images", in: sandbox)          // Library/Caches/images
/// try cache.set(png, forKey: "https://example.com/a.png", expiry: .after(7 * 86_400))
/// let data = cache.data(forKey: "https://example.com/a.png")
/// let url = cache.fileURL(for: "https://example.com/a.png")      // …/files/<sha256(key)>-<random>.png
/// try await cache.trim()
/// ```
///
/// **How it works** (the full design, with its crash ordering and trade-offs:
/// <doc:HowDiskCacheWorks>). `manifest.sqlite` lists every entry; a value of at most
/// ``Configuration/inlineThreshold`` bytes is a record of the value log (`values/<n>.log`),
/// found through a mapped location index (`locations`) and read with one `pread` outside the
/// cache's lock; larger values live in `files/`, named after the SHA-256 of their key. Writes
/// are staged in memory and committed by a background queue, many in one transaction per
/// ``Configuration/flushDelay``; reads see staged values first. Opening reads no entry, so a
/// cache of a million entries opens as fast as an empty one.
///
/// **Durability.** A cache is disposable, so its commits are not synced (only a large
/// value's file, before the commit naming it, and compaction's copies). A crash of the process loses
/// the writes staged in the last ``Configuration/flushDelay`` (call ``flush()`` to write
/// them now; ``close()`` and releasing the cache flush too), never more: flushed entries
/// survive. It never leaves a manifest entry whose file is missing nor an orphan file: a
/// record or file is written before its row is committed and a row is deleted before its
/// file or segment, and opening the cache reconciles them (cutting segments back to their
/// committed ends, which also absorbs a power cut rolling back the last commits). A record
/// or file lost anyway (a power cut, bytes damaged behind the cache's back: each record
/// carries a checksum) is a miss that removes its entry. The location index is used again
/// only if its writer closed it cleanly; otherwise it starts empty and fills as keys are
/// read. A corrupt manifest is rebuilt empty and logged. A full disk makes `set` throw
/// ``/StashCore/StashError/Code/diskFull``.
///
/// **Processes.** One process writes a cache folder at a time: a `flock` on `writer.lock`
/// enforces it, and a second writer gets ``/StashCore/StashError/Code/locked``. Other
/// processes may open the folder with ``Access/readOnly``: they see what the writer has
/// flushed.
///
/// **Threads.** Every method is safe from any thread. Reads run side by side, and never
/// wait for a flush's writes, syncs or commits; sync methods never wait for housekeeping; `async` ones (``flush()``, ``trim()``, ``removeExpired()``, ``removeAll()``) run on
/// the cache's background queue and return when their work is in the manifest.
///
/// Keep caches in the caches or temporary folder (``init(name:in:folder:configuration:)``
/// insists); the folder is marked as excluded from backup.
public final class DiskCache: Sendable {
    /// The cache's folder.
    public let directory: URL
    /// The configuration the cache was opened with.
    public let configuration: Configuration
    /// What opening the cache had to repair.
    public let recovery: Recovery

    let filesDirectory: URL
    /// `filesDirectory` as a path ending in a slash.
    let filesDirectoryPath: String
    let manifestURL: URL
    let manifest: Manifest
    let reader: ManifestReader
    /// The records of small values (`values/`).
    let valueLog: ValueLog
    /// The connection of walks over many rows, opened with the cache.
    let scan: ManifestScan
    let state: LockedValue<DiskCacheState>
    /// Held while a file takes its final name or is deleted, so that a deletion decided by a
    /// flush never removes a file that a newer write just put in place.
    let files = Lock()
    let writerLock: LockedValue<FileLock?>
    let queue = DispatchQueue(label: "StashCache.DiskCache.flush", qos: .utility)

    /// Opens (creating it when needed) the cache in folder `name` of a sandbox's caches or
    /// temporary folder.
    ///
    /// ```swift
    /// let thumbnails = try DiskCache(name: "thumbnails", in: sandbox, folder: .temporary)
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/unsupportedLocation`` for another folder,
    ///   ``/StashCore/StashError/Code/invalidName`` for a bad name, and what
    ///   ``init(directory:configuration:)`` throws.
    public convenience init(name: String, in sandbox: Sandbox, folder: Sandbox.Folder = .caches, configuration: Configuration = Configuration()) throws {
        guard folder == .caches || folder == .temporary else {
            throw StashError(.unsupportedLocation, "a disk cache lives in the caches or temporary folder, not \(folder)", path: sandbox.path(for: folder).path)
        }
        try Sandbox.validate(name: name, what: "cache name")
        let base = try sandbox.url(for: folder)
        try self.init(directory: base.appendingPathComponent(name, isDirectory: true), configuration: configuration)
    }

    /// Opens (creating it when needed) the cache in `directory`.
    ///
    /// Opening a writer reconciles the manifest with the files (see ``recovery``) and
    /// schedules a sweep of expired entries.
    ///
    /// - parameters:
    ///   - directory: The cache's own folder. Prefer one inside the caches or temporary
    ///     folder: the cache marks it as excluded from backup and may delete files in it.
    ///   - configuration: Limits, expiry, clock, access.
    /// - throws: ``/StashCore/StashError/Code/locked`` when another writer has the folder,
    ///   ``/StashCore/StashError/Code/notFound`` for a read-only view of a cache that does
    ///   not exist, ``/StashCore/StashError/Code/permissionDenied`` or
    ///   ``/StashCore/StashError/Code/io`` when the folder is unusable.
    public init(directory: URL, configuration: Configuration = Configuration()) throws {
        let directory = directory.standardizedFileURL
        self.directory = directory
        self.configuration = configuration
        filesDirectory = directory.appendingPathComponent("files", isDirectory: true)
        let filesPath = filesDirectory.path
        filesDirectoryPath = filesPath.hasSuffix("/") ? filesPath : filesPath + "/"
        let manifestURL = directory.appendingPathComponent("manifest.sqlite")
        self.manifestURL = manifestURL
        let now = configuration.clock.now.timeIntervalSince1970
        let opened: OpenedManifest
        switch configuration.access {
        case .readWrite:
            try FileStore.createFolder(directory)
            try BackupExclusion.mark(directory)
            try FileStore.createFolder(filesDirectory)
            let lock = try FileLock(url: directory.appendingPathComponent("writer.lock"))
            guard try lock.tryLock(.exclusive) else {
                throw StashError(.locked, "another DiskCache, in this process or another, writes this cache; open it with access .readOnly for a read-only view", path: directory.path)
            }
            writerLock = LockedValue(lock)
            opened = try DiskCache.openWriter(manifestURL: manifestURL, filesDirectory: filesDirectory, logger: configuration.logger)
        case .readOnly:
            guard FileStore.exists(manifestURL) else {
                throw StashError(.notFound, "no disk cache here", path: directory.path)
            }
            writerLock = LockedValue(nil)
            let manifest = try Manifest(url: manifestURL, readOnly: true)
            opened = OpenedManifest(manifest: manifest, recovery: Recovery())
        }
        manifest = opened.manifest
        recovery = opened.recovery
        valueLog = ValueLog(folder: directory.appendingPathComponent(DiskCache.valuesFolder, isDirectory: true), isWriter: configuration.access == .readWrite)
        var state = DiskCacheState(counters: opened.counters, now: now)
        if configuration.access == .readWrite {
            try valueLog.reconcile(committed: opened.segments)
            state.locations = DiskCache.openLocations(in: directory, counters: opened.counters, logger: configuration.logger)
        }
        reader = try ManifestReader(url: manifestURL, holdsSnapshot: configuration.access == .readWrite)
        scan = try ManifestScan(url: manifestURL)
        self.state = LockedValue(state)
        if configuration.access == .readWrite {
            queue.async { [weak self] in self?.housekeep(force: true) }
        }
    }

    deinit {
        guard !isReadOnly, !state.withLock({ $0.isClosed }) else { return }
        do { try flushBeforeClosing() } catch { configuration.logger.error("flush of a released cache failed: \(error)") }
        // Closed cleanly now, while the writer lock is still held: a writer that takes the
        // folder next must not find this mark written over its own.
        closeLocations()
    }

    /// Whether this instance only reads (``Access/readOnly``).
    public var isReadOnly: Bool { configuration.access == .readOnly }

    /// Flushes staged writes, then releases the manifest and the writer lock so that another
    /// instance or process may write the folder. Later calls read nothing and throw
    /// ``/StashCore/StashError/Code/closed`` on writes. Idempotent.
    ///
    /// ```swift
    /// try cache.close()
    /// let again = try DiskCache(directory: cache.directory)
    /// ```
    ///
    /// - throws: What the last flush could not write (``/StashCore/StashError/Code/diskFull``
    ///   on a full disk), naming how many staged changes are lost. The cache is closed
    ///   either way. When every staged change was written and only bookkeeping failed
    ///   (access dates, counters), nothing acknowledged is lost: that is logged, not thrown.
    public func close() throws {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard wasOpen else { return }
        defer {
            reader.close()
            scan.close()
            closeLocations()
            valueLog.close()
            writerLock.withLock { $0 = nil }
        }
        guard !isReadOnly else { return }
        try queue.sync {
            do {
                try flushBeforeClosing()
            } catch let error as StashError {
                let lost = state.withLock { $0.pending.count }
                guard lost > 0 else {
                    // Every staged change was written; what failed was bookkeeping (access
                    // dates, counters, a checkpoint), which the next open rebuilds.
                    configuration.logger.warning("closing the cache: \(error.reason); no staged change was lost")
                    return
                }
                var failure = error
                failure.reason = "closing the cache could not write \(lost) staged changes, which are lost: \(error.reason)"
                throw failure
            }
        }
    }

    var now: Double { configuration.clock.now.timeIntervalSince1970 }

    /// The folder of the value log's segments, and the file of the ``LocationIndex``.
    static let valuesFolder = "values"
    static let locationsFile = "locations"

    /// The writer's ``LocationIndex`` of the cache in `directory`, following the manifest as
    /// `counters` say it is (a new index is sized for its entries); `nil` (reads then go
    /// through the manifest) when its file cannot be used.
    static func openLocations(in directory: URL, counters: ManifestCounters, logger: Logger) -> LocationIndex? {
        let path = directory.appendingPathComponent(locationsFile).path
        // A crafted count must not size a huge table: a row takes more than 16 bytes of the
        // manifest (its file and write-ahead log), so the table stays within their size.
        let manifestBytes = ["manifest.sqlite", "manifest.sqlite-wal"].reduce(Int64(0)) { total, name in
            total + ((try? FileStore.size(of: directory.appendingPathComponent(name))) ?? 0)
        }
        let rows = Int(clamping: manifestBytes / 16)
        // Anything but a file in its place (a symbolic link planted there) is not the index:
        // it goes, and the index is made anew (opened without following a link).
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG { SystemCalls.unlink(path) }
        do {
            return try LocationIndex(path: path, generation: counters.generation, entries: min(max(counters.count, 0), rows))
        } catch {
            logger.notice("the location index \(path) cannot be used (\(error)); reads go through the manifest")
            return nil
        }
    }

    /// Closes the ``LocationIndex`` cleanly (the next writer may trust it), before the writer
    /// lock goes.
    func closeLocations() {
        let locations = state.withLock { state -> LocationIndex? in
            defer { state.locations = nil }
            return state.locations
        }
        do {
            try locations?.close()
        } catch {
            configuration.logger.notice("closing the location index of \(directory.path) failed: \(error); the next open starts it again")
        }
    }

    /// The path of the file `name` (a record's ``DiskRecord/file``), built without a `URL`
    /// for reads.
    func filePath(named name: String) -> String {
        filesDirectoryPath + name
    }
}
