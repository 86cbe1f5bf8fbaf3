public import Foundation
public import HTTPTypes
import StashCache
public import StashCore

/// An RFC 9111 HTTP cache with URLCache's two numbers: a memory capacity and a disk capacity.
///
/// ```swift
/// let cache = try HTTPCache(memoryCapacity: 4 << 20, diskCapacity: 64 << 20,
///                           directory: Sandbox.main.caches.appendingPathComponent("HTTPCache"))
/// let client = CachingHTTPClient(cache: cache, transport: URLSessionTransport())
/// let answer = try await client.send(HTTPRequest(url: URL(string: "https://example.com/")!))
/// print(answer.outcome) // .network, then .cache while fresh
/// ```
///
/// The cache implements RFC 9111 and RFC 5861 in ``HTTPCacheMode/private`` or
/// ``HTTPCacheMode/shared`` mode: storage rules, freshness (explicit and heuristic), age,
/// `Vary`, request and response directives, validation with `304`, invalidation by unsafe
/// methods, `HEAD` from stored `GET` (and `HEAD` responses freshening it), `POST` responses
/// that name their URI in `Content-Location`, `stale-while-revalidate` and `stale-if-error`.
/// A `Range` request (one byte range, suffix ranges, `If-Range`) is answered with `206` from
/// a stored complete response; partial responses (`206`) from the origin are passed on and
/// never stored.
///
/// - Durability: with a `directory`, responses are kept in a StashCache `HybridCache`
///   (decoded in memory, encoded in a `DiskCache` on disk), which never leaves a torn entry;
///   a crash of the process loses at most the stores of the last 50 ms (``flush()`` writes
///   them at once). Bodies over 1 MiB that arrive in parts
///   (``streamResponse(to:body:policy:revalidatesInBackground:send:)``) are written to a file
///   of the DiskCache as they arrive and kept there, never in memory. One `HTTPCache` writes a folder at a time. Without a `directory` the
///   cache lives in memory only. With shared storage (``init(sharedStorage:mode:collapsesRequests:storesResponsesThatSetCookies:clock:)``,
///   several processes on one StashPostgres `SharedCache`) responses live in that storage
///   only, and survive what it survives.
/// - Thread safety: all methods may be called from any thread or task concurrently.
public final class HTTPCache: Sendable {
    /// Private (one user) or shared (a proxy).
    public let mode: HTTPCacheMode
    /// The most bytes kept in memory.
    public let memoryCapacity: Int
    /// The most bytes kept on disk (0 without a directory).
    public let diskCapacity: Int
    /// Where responses are stored, or `nil` for a memory-only cache.
    public let directory: URL?
    /// Whether concurrent identical requests share one trip to the origin.
    public let collapsesRequests: Bool
    /// Whether a ``HTTPCacheMode/shared`` cache stores responses that set a cookie; `false`
    /// by default, as nginx and Varnish do, since the cookie is one client's.
    ///
    /// ```swift
    /// let cache = try HTTPCache(directory: folder, mode: .shared, storesResponsesThatSetCookies: true)
    /// ```
    ///
    /// A shared cache never replays a `Set-Cookie` to another client: when this is `true`,
    /// or when the origin names it in `Cache-Control: private="Set-Cookie"` (or
    /// `no-cache="Set-Cookie"`), the response is stored without its `Set-Cookie` fields, so
    /// only the client whose request fetched it gets them, from the origin's answer; nor does
    /// a `304` that sets a cookie add it to the stored response. In ``HTTPCacheMode/private``
    /// mode this changes nothing: a private cache stores and replays `Set-Cookie`, as its
    /// one user got it from the origin.
    public let storesResponsesThatSetCookies: Bool

    let clock: any StashClock
    /// The decoded variants of each URL, by ``PrimaryCacheKey/storageKey``; with a
    /// `directory`, the memory side of `hybrid`. Unused (capacity 0) with shared storage.
    let memory: MemoryCache<String, [StoredResponse]>
    /// Memory in front of a DiskCache holding the encoded variants, when there is a `directory`.
    let hybrid: HybridCache<[StoredResponse]>?
    /// Where responses are kept when several caches share them (``init(sharedStorage:mode:collapsesRequests:storesResponsesThatSetCookies:clock:)``);
    /// `nil` for a cache of this process only.
    ///
    /// ```swift
    /// if cache.sharedStorage != nil { print("hits and invalidations are shared with the fleet") }
    /// ```
    public let sharedStorage: (any SharedStorage)?
    let counters = LockedValue(Statistics())
    let inFlight = LockedValue([String: CollapseGate]())
    /// The writes the synchronous API started on shared storage, the last one per URL.
    let backgroundWrites = BackgroundTasks()
    /// The stale-while-revalidate revalidations running in tasks of their own, one per variant (URL and `Vary` selection).
    let backgroundRevalidations = BackgroundTasks()

    /// Opens a cache.
    ///
    /// ```swift
    /// let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 16 << 20, directory: folder, mode: .shared)
    /// ```
    ///
    /// - parameters:
    ///   - memoryCapacity: Bytes kept in memory; least recently used entries go first.
    ///   - diskCapacity: Bytes kept in `directory`; least recently used files go first.
    ///   - directory: The folder for stored responses (created if needed); `nil` keeps
    ///     everything in memory.
    ///   - mode: ``HTTPCacheMode/private`` for a client, ``HTTPCacheMode/shared`` for a proxy.
    ///   - collapsesRequests: Let concurrent identical requests wait for one origin trip.
    ///   - storesResponsesThatSetCookies: In ``HTTPCacheMode/shared`` mode, store responses
    ///     carrying `Set-Cookie` (without that field); see ``storesResponsesThatSetCookies``.
    ///   - clock: The source of "now" for freshness and age.
    /// - throws: ``StashCore/StashError`` when the folder cannot be created or listed.
    public convenience init(
        memoryCapacity: Int = 4 << 20,
        diskCapacity: Int = 64 << 20,
        directory: URL? = nil,
        mode: HTTPCacheMode = .private,
        collapsesRequests: Bool = true,
        storesResponsesThatSetCookies: Bool = false,
        clock: any StashClock = SystemClock()
    ) throws {
        var disk: DiskCache?
        if let directory {
            var configuration = DiskCache.Configuration()
            configuration.sizeLimit = max(0, diskCapacity)
            configuration.flushDelay = Self.flushDelay
            disk = try DiskCache(directory: directory, configuration: configuration)
        }
        self.init(
            storage: .local(memoryCapacity: max(0, memoryCapacity), directory: directory, diskCapacity: max(0, diskCapacity), disk: disk),
            mode: mode, collapsesRequests: collapsesRequests, storesResponsesThatSetCookies: storesResponsesThatSetCookies, clock: clock
        )
    }

    /// Where a cache keeps its responses.
    enum StorageChoice {
        /// Memory, with a DiskCache behind it when there is a `directory`.
        case local(memoryCapacity: Int, directory: URL?, diskCapacity: Int, disk: DiskCache?)
        /// Storage several caches share, with no copy in this process.
        case shared(any SharedStorage)
    }

    init(storage: StorageChoice, mode: HTTPCacheMode, collapsesRequests: Bool, storesResponsesThatSetCookies: Bool, clock: any StashClock) {
        self.mode = mode
        self.collapsesRequests = collapsesRequests
        self.storesResponsesThatSetCookies = storesResponsesThatSetCookies
        self.clock = clock
        var memoryCapacity = 0
        switch storage {
        case let .local(capacity, directory, diskCapacity, _):
            memoryCapacity = capacity
            self.directory = directory
            self.diskCapacity = directory == nil ? 0 : diskCapacity
            sharedStorage = nil
        case let .shared(shared):
            directory = nil
            diskCapacity = 0
            sharedStorage = shared
        }
        self.memoryCapacity = memoryCapacity
        memory = MemoryCache(configuration: .init(
            costLimit: memoryCapacity,
            cost: { key, variants in variants.reduce(key.utf8.count) { $0 + $1.cost } }
        ))
        if case let .local(_, _, _, disk?) = storage {
            hybrid = HybridCache(memory: memory, disk: disk, codec: StoredResponseCoding())
        } else {
            hybrid = nil
        }
    }

    /// Opens the cache in a sandbox's `Caches/HTTPCache` folder.
    ///
    /// ```swift
    /// let cache = try HTTPCache(sandbox: .main)
    /// ```
    ///
    /// - parameters: As for ``init(memoryCapacity:diskCapacity:directory:mode:collapsesRequests:storesResponsesThatSetCookies:clock:)``.
    public convenience init(
        sandbox: Sandbox, memoryCapacity: Int = 4 << 20, diskCapacity: Int = 64 << 20,
        mode: HTTPCacheMode = .private, storesResponsesThatSetCookies: Bool = false, clock: any StashClock = SystemClock()
    ) throws {
        let directory = try sandbox.url(for: .caches).appendingPathComponent("HTTPCache", isDirectory: true)
        try self.init(
            memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory, mode: mode,
            storesResponsesThatSetCookies: storesResponsesThatSetCookies, clock: clock
        )
    }

    /// What the cache has done so far.
    public var statistics: Statistics { counters.withLock { $0 } }

    /// Bytes held in memory now.
    public var currentMemoryUsage: Int { memory.totalCost }

    /// Bytes held on disk now.
    public var currentDiskUsage: Int { hybrid?.disk.totalSize ?? 0 }

    /// Forgets every stored response, in memory and on disk. With ``sharedStorage``, removes
    /// the responses of every cache on that storage (the keys starting `http-cache:`) and
    /// nothing else: sessions or other values sharing a `SharedCache` table stay.
    ///
    /// ```swift
    /// try await cache.removeAll()
    /// ```
    ///
    /// - throws: What the disk cache or the shared storage could not remove (the memory side
    ///   is empty either way).
    public func removeAll() async throws {
        memory.removeAll()
        try await hybrid?.removeAll()
        await backgroundWrites.wait()
        try await sharedStorage?.removeAll(withKeyPrefix: Self.sharedKeyPrefix)
    }

    /// Writes stored responses still staged in memory to disk now; with ``sharedStorage``,
    /// waits for the writes that ``storeResponse(_:body:for:requestTime:responseTime:)`` and
    /// ``removeResponses(for:)`` started. Waits first for the background revalidations
    /// (`stale-while-revalidate`) started before it, so that what they store is written too.
    ///
    /// ```swift
    /// try await cache.flush()
    /// ```
    ///
    /// **Waits on the network:** each running revalidation is an origin request (one per
    /// URL at a time), and `flush()` returns only once it has been answered and its body
    /// stored or abandoned: as long as your `send` takes, bounded only by your transport's
    /// timeout. Call it where that wait is acceptable (an app moving to the background), or
    /// ``close()`` to stop the revalidations instead.
    ///
    /// **Durability:** once it returns, every response stored before the call is committed
    /// to the disk cache's manifest and survives a crash of the process. Nothing is fsynced
    /// (a cache is disposable): a power cut may roll back the last commits, and the cache
    /// then reopens without them, never with a response whose body file is half written.
    /// With ``sharedStorage``, the writes are in that storage and survive what it survives.
    ///
    /// **Threads:** safe to call from any task, concurrently with lookups, stores and other
    /// flushes; each call waits for the work started before it.
    ///
    /// - throws: ``StashCore/StashError`` when the disk cannot be written.
    public func flush() async throws {
        await backgroundRevalidations.wait()
        await backgroundWrites.wait()
        try await hybrid?.disk.flush()
    }

    /// Cancels the running background revalidations, flushes and releases the cache
    /// folder, so that another `HTTPCache` (in this process or another) may open it. Stale
    /// hits start no revalidation. With a ``directory``, later stores are dropped and
    /// lookups find only what its memory tier still holds (a body in a file misses); a
    /// cache in memory only, or on ``sharedStorage``, goes on storing and answering.
    ///
    /// ```swift
    /// try await cache.flush() // optional: lets running revalidations finish and be written
    /// try cache.close()
    /// let reopened = try HTTPCache(directory: folder)
    /// ```
    ///
    /// A revalidation cancelled abandons its origin request (at the transport's next
    /// cancellation check) and stores nothing, unless its body was already complete: its
    /// store then still runs (with a directory, it may land before the folder closes);
    /// otherwise the stale response it would have refreshed stays as it was. It does not wait for the shared-storage writes that
    /// ``storeResponse(_:body:for:requestTime:responseTime:)`` and ``removeResponses(for:)``
    /// started: they go on (call ``flush()`` first to wait for them).
    ///
    /// **Durability:** as ``flush()``: what was stored before the call survives a crash of
    /// the process once it returns. **Threads:** safe to call from any task, concurrently with
    /// other calls (which then see a closed cache); idempotent.
    ///
    /// - throws: ``/StashCore/StashError/Code/diskFull`` (or another write error) naming how
    ///   many staged responses could not be written; the folder is released all the same.
    public func close() throws {
        backgroundRevalidations.cancel()
        try hybrid?.disk.close()
    }

    /// Forgets the responses stored for `request`'s URL (every variant). With
    /// ``sharedStorage`` the removal runs in the background (``flush()`` waits for it).
    ///
    /// ```swift
    /// cache.removeResponses(for: HTTPRequest(url: URL(string: "https://example.com/feed")!))
    /// ```
    public func removeResponses(for request: HTTPRequest) {
        guard let key = PrimaryCacheKey(request) else { return }
        if let sharedStorage {
            writeInBackground(for: key) { await self.setSharedVariants([], for: key, in: sharedStorage) }
        } else {
            setLocalVariants([], replacing: localVariants(for: key), for: key)
        }
    }

    /// How long stores stay staged in memory before the DiskCache writes them out.
    static let flushDelay: TimeInterval = 0.05

    func record(_ update: (inout Statistics) -> Void) { counters.withLock { update(&$0) } }
}
