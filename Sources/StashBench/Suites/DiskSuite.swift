import Foundation
import GRDB
import Stash
import GRDBSQLite
#if canImport(CDispatch)
// On Linux, `struct stat`'s members are attributed to CDispatch in some build orders (release).
import CDispatch
#endif

/// `stash-bench disk`: DiskCache against the two classic designs, same data, same order.
///
/// - `stash`: ``DiskCache`` with its defaults. Its writes are staged and flushed in the
///   background; `write-*` and `replace-small` time each repetition's writes and the flush
///   that commits them, as the peers commit each write, so the figures compare the same
///   work. The `flush-after-*` cases time the commit alone.
/// - `file-per-key`: SDImageCache / ZJDataCache: one file per SHA-256-named key, written
///   atomically (temporary file + rename, no fsync, like `NSDataWritingAtomic`), read whole,
///   expiry checked from the file's modification date.
/// - `sqlite-raw` and `sqlite-expert` (``SQLiteRawStore``): one table through the C API,
///   as a first version would write it (one autocommit transaction per write) and as SQLite's
///   documentation recommends (the writes between flushes in one transaction, locks held,
///   `WITHOUT ROWID` where every row is small).
/// - `sqlite-design` (``SQLiteDesignStore``): not a peer but the plain SQLite design of a disk
///   cache, the alternative to DiskCache's value log and location index, with its features
///   (staged writes, files for large values, access dates, concurrent readers).
///
/// `scale-10k`, `scale-100k` and `scale-1m` (``DiskScaleCases``) measure Stash and both SQLite set-ups at size;
/// `read-during-slow-sync` (``DiskSlowSyncCase``) a read's latency while compaction syncs slowly.
enum DiskSuite {
    static let suite = "disk"

    @Sendable static func run(_ context: BenchContext) async throws {
        if try DiskScaleCases.runProbeIfAsked() { return }
        let scratch = try context.makeScratch("disk")
        defer { context.removeScratch(scratch) }
        let workload = DiskWorkload(smallCount: context.scaled(1000), largeCount: context.scaled(1000))
        let stash = try StashDiskStore(folder: scratch.appendingPathComponent("stash"))
        let filePerKey = try FilePerKeyStore(folder: scratch.appendingPathComponent("file-per-key"))
        let sqlite = try SQLiteRawStore(folder: scratch.appendingPathComponent("sqlite-raw"))
        // A rowid table: this one holds 100 KB values beside the small ones (``SQLiteRawStore/Tuning``).
        let sqliteExpert = try SQLiteRawStore(folder: scratch.appendingPathComponent("sqlite-expert"), tuning: .expert(withoutRowID: false))
        let design = try SQLiteDesignStore(folder: scratch.appendingPathComponent("sqlite-design"))
        let stores: [[String: AsyncContender]] = [
            contenders(stash, "stash", workload), contenders(filePerKey, "file-per-key", workload),
            contenders(sqlite, "sqlite-raw", workload), contenders(sqliteExpert, "sqlite-expert", workload),
            contenders(design, "sqlite-design", workload),
        ]
        // The read cases read these whether or not the write cases run first.
        for store in [stash, filePerKey, sqlite, sqliteExpert, design] as [any DiskBenchStore] { try await seed(store, workload) }
        func compare(_ name: String) async throws {
            try await context.compareAsync(suite: suite, case: name, stores.compactMap { $0[name] })
        }
        try await compare("write-small")
        try await flushAfter("write-small", stash, workload, context) { generation in
            for (key, value) in zip(workload.smallKeys(generation: generation), workload.smallValues) { try stash.set(value, key) }
            return workload.smallValues.count
        }
        try await compare("replace-small")
        try await flushAfter("replace-small", stash, workload, context) { generation in
            let values = generation % 2 == 0 ? workload.replacementValues : workload.smallValues
            for (key, value) in zip(workload.smallKeys, values) { try stash.set(value, key) }
            return values.count
        }
        try await compare("read-small")
        // The SQLite peers have one connection each, which one thread at a time may use.
        try await compare("read-small-2-threads")
        try await compare("read-small-8-threads")
        // No `flush-after-write-large`: a file-backed value's file is written by `set`, so its
        // flush commits a row like a small value's (`flush-after-write-small`), and staging
        // 100 MB for every few milliseconds of flush made the case the slowest of the run.
        try await compare("write-large")
        try await compare("read-large")
        try await compare("miss")
        try stash.cache.close()
        try await DiskSlowSyncCase.run(context, scratch: scratch)
        try await DiskScaleCases.run(context, scratch: scratch)
        context.reporter.note("disk: write cases time the writes and their commit (stash: set, then flush); flush-after-* times stash's commit alone")
    }

    /// The contender of `store` in each case. `write-small` writes new keys on every
    /// repetition (generation `n` of the keys, made untimed); `replace-small` and
    /// `write-large` rewrite the same keys; reads read what `replace-small` and `write-large`
    /// wrote. A write case's repetition ends once its writes are committed (`flush`, a no-op
    /// for a store that commits each write).
    static func contenders<S: DiskBenchStore>(_ store: S, _ impl: String, _ workload: DiskWorkload) -> [String: AsyncContender] {
        let small = workload.smallKeys.count
        let large = workload.largeKeys.count
        let smallReads = workload.smallReadOrder.map { workload.smallKeys[$0] }
        let largeReads = workload.largeReadOrder.map { workload.largeKeys[$0] }
        let generation = Counter()
        var freshKeys = workload.smallKeys
        var concurrent: [String: AsyncContender] = [:]
        if store.readsFromManyThreads {
            let shared = UncheckedDiskStore(store)
            for threads in [2, 8] {
                let name = "read-small-\(threads)-threads"
                // Every thread reads every key in the shuffled order, each from its own starting point.
                concurrent[name] = AsyncContender(impl) {
                    let found = onThreads(threads) { thread in
                        let offset = thread * smallReads.count / threads
                        var hits = 0
                        for index in smallReads.indices where shared.store.get(smallReads[(index + offset) % smallReads.count]) != nil { hits += 1 }
                        return hits
                    }
                    return try expectHits(threads * small, found, name, impl)
                }
            }
        }
        return concurrent.merging([
            "write-small": AsyncContender(impl, prepare: {
                freshKeys = workload.smallKeys(generation: generation.next())
            }) {
                for (key, value) in zip(freshKeys, workload.smallValues) { try store.set(value, key) }
                try await store.flush()
                return small
            },
            "replace-small": AsyncContender(impl) {
                let values = generation.next() % 2 == 0 ? workload.replacementValues : workload.smallValues
                for (key, value) in zip(workload.smallKeys, values) { try store.set(value, key) }
                try await store.flush()
                return small
            },
            "read-small": AsyncContender(impl) { try expectHits(small, hits(smallReads, store), "read-small", impl) },
            "write-large": AsyncContender(impl) {
                let shift = generation.next()
                for (index, key) in workload.largeKeys.enumerated() {
                    try store.set(workload.largeValues[(index + shift) % workload.largeValues.count], key)
                }
                try await store.flush()
                return large
            },
            "read-large": AsyncContender(impl) { try expectHits(large, hits(largeReads, store), "read-large", impl) },
            "miss": AsyncContender(impl) { try expectHits(0, hits(workload.missingKeys, store), "miss", impl) + workload.missingKeys.count },
        ]) { $1 }
    }

    /// `flush-after-NAME`, Stash only: `stage` writes a batch untimed, then the flush that
    /// commits it is timed.
    private static func flushAfter(
        _ name: String, _ stash: StashDiskStore, _ workload: DiskWorkload, _ context: BenchContext,
        stage: @escaping (Int) throws -> Int
    ) async throws {
        let generation = Counter()
        let staged = Counter()
        try await context.compareAsync(suite: suite, case: "flush-after-\(name)", [
            AsyncContender("stash", prepare: { staged.set(try stage(generation.next() + 1_000_000)) }) {
                try await stash.flush()
                return staged.value
            },
        ])
    }

    /// Writes every small and large key, untimed, and commits them.
    private static func seed(_ store: any DiskBenchStore, _ workload: DiskWorkload) async throws {
        for (key, value) in zip(workload.smallKeys, workload.smallValues) { try store.set(value, key) }
        for (index, key) in workload.largeKeys.enumerated() {
            try store.set(workload.largeValues[index % workload.largeValues.count], key)
        }
        try await store.flush()
    }

    /// Fails the run when an implementation does not return what it should, so that no figure
    /// is a measure of misses. Returns the operations done.
    private static func expectHits(_ expected: Int, _ hits: Int, _ name: String, _ impl: String) throws -> Int {
        guard hits == expected else {
            throw StashError(.io, "disk bench \(impl) \(name): \(hits) hits, expected \(expected)")
        }
        return hits
    }
}

/// A number that closures of one contender share and advance.
final class Counter: @unchecked Sendable {
    private(set) var value = 0
    func next() -> Int {
        value += 1
        return value
    }
    func set(_ newValue: Int) { value = newValue }
}

/// A store read from several threads at once (``DiskBenchStore/readsFromManyThreads``).
private struct UncheckedDiskStore<S: DiskBenchStore>: @unchecked Sendable {
    let store: S
    init(_ store: S) { self.store = store }
}

/// Reads every key and counts the hits, dropping each value at once as an app that decodes
/// it would. Keeping them all alive would charge the first implementation measured with the
/// page faults of 100 MB of fresh heap, which the ones after it reuse.
private func hits(_ keys: [String], _ store: some DiskBenchStore) -> Int {
    var hits = 0
    for key in keys where store.get(key) != nil { hits += 1 }
    return hits
}

/// The data of the disk suite: 128-byte and 100 KB values, and a fixed shuffled read order.
struct DiskWorkload {
    let smallKeys: [String]
    let smallValues: [Data]
    let replacementValues: [Data]
    let largeKeys: [String]
    let largeValues: [Data]
    let missingKeys: [String]
    let smallReadOrder: [Int]
    let largeReadOrder: [Int]

    /// Generation `n` of the small keys: new keys for a repetition of `write-small`.
    func smallKeys(generation: Int) -> [String] {
        smallKeys.indices.map { "https://example.com/api/g\(generation)/item/\($0).json" }
    }

    init(smallCount: Int, largeCount: Int) {
        smallKeys = (0..<smallCount).map { "https://example.com/api/item/\($0).json" }
        smallValues = (0..<smallCount).map { Data(repeating: UInt8(truncatingIfNeeded: $0), count: 128) }
        replacementValues = (0..<smallCount).map { Data(repeating: UInt8(truncatingIfNeeded: $0 &+ 1), count: 128) }
        largeKeys = (0..<largeCount).map { "https://example.com/images/\($0).jpg" }
        largeValues = (0..<16).map { Data(repeating: UInt8($0), count: 100 * 1024) }
        missingKeys = (0..<smallCount).map { "https://example.com/api/missing/\($0).json" }
        smallReadOrder = DiskWorkload.permutation(smallCount)
        largeReadOrder = DiskWorkload.permutation(largeCount)
    }

    /// The same pseudo-random order on every run.
    private static func permutation(_ count: Int) -> [Int] {
        seededPermutation(count, seed: 0x9E37_79B9_7F4A_7C15)
    }
}

/// What the suite needs from each implementation.
protocol DiskBenchStore {
    var stagesWrites: Bool { get }
    /// Whether `get` may be called from several threads at once (the concurrent-reader cases).
    var readsFromManyThreads: Bool { get }
    func set(_ data: Data, _ key: String) throws
    func get(_ key: String) -> Data?
    func flush() async throws
}

struct StashDiskStore: DiskBenchStore {
    let cache: DiskCache

    init(folder: URL) throws { cache = try DiskCache(directory: folder) }

    var stagesWrites: Bool { true }
    var readsFromManyThreads: Bool { true }
    func set(_ data: Data, _ key: String) throws { try cache.set(data, forKey: key) }
    func get(_ key: String) -> Data? { cache.data(forKey: key) }
    func flush() async throws { try await cache.flush() }
}

/// The SDImageCache / ZJDataCache design: one file per hashed key.
struct FilePerKeyStore: DiskBenchStore {
    let folder: URL
    /// Files older than this are expired, as ZJDataCache judges by modification date.
    let maxAge: TimeInterval = 7 * 86_400

    init(folder: URL) throws {
        self.folder = folder
        try FileStore.createFolder(folder)
    }

    var stagesWrites: Bool { false }
    var readsFromManyThreads: Bool { true }

    func set(_ data: Data, _ key: String) throws {
        try FileStore.write(data, to: url(key), durability: .processSafe)
    }

    func get(_ key: String) -> Data? {
        let fd = open(url(key).path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
        #else
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        #endif
        guard Date().timeIntervalSince1970 - modified < maxAge else { return nil }
        var data = Data(count: Int(info.st_size))
        let count = data.withUnsafeMutableBytes { buffer -> Int in
            var total = 0
            while total < buffer.count {
                let n = read(fd, buffer.baseAddress! + total, buffer.count - total)
                if n <= 0 { break }
                total += n
            }
            return total
        }
        return count == data.count ? data : nil
    }

    func flush() async throws {}

    private func url(_ key: String) -> URL {
        folder.appendingPathComponent(SHA256.hexDigest(of: key), isDirectory: false)
    }
}

/// One SQLite table through the C API: prepared statements, WAL, synchronous = NORMAL, and
/// the file memory-mapped as Stash's lookup connection maps its manifest (`mmap_size`, 1 GiB),
/// so that reads at scale compare the same access to the same pages.
///
/// Two set-ups:
/// - `sqlite-raw` (``Tuning/naive``): a rowid table keyed by a text primary key, one autocommit
///   transaction per write, a read lock taken and dropped by every statement: what a first
///   version of a cache on SQLite looks like.
/// - `sqlite-expert` (``Tuning/expert(withoutRowID:)``): what SQLite's own documentation
///   recommends for this workload. The writes between two flushes in one transaction,
///   committed by `flush` as Stash's flush commits its batch, with the same durability (WAL,
///   `synchronous = NORMAL`: no sync at commit; sqlite.org/faq.html#q19,
///   sqlite.org/pragma.html#pragma_synchronous); `locking_mode = EXCLUSIVE`, which holds the
///   connection's locks instead of taking them per statement, as Stash holds its read
///   transaction (sqlite.org/pragma.html#pragma_locking_mode, sqlite.org/wal.html#noshm); and
///   a `WITHOUT ROWID` table where every row is small, as the scale cases' 100-byte values
///   are, since the key is text (sqlite.org/withoutrowid.html, section 4). That page advises
///   against it for rows over about a twentieth of a page: the suite's main table also holds
///   100 KB values, and with them in a `WITHOUT ROWID` table the small reads slowed to less
///   than half their rate, so that table keeps its rowid.
final class SQLiteRawStore: DiskBenchStore, @unchecked Sendable {
    enum Tuning: Sendable, Equatable {
        case naive
        /// As SQLite's documentation recommends; `WITHOUT ROWID` when every row is small.
        case expert(withoutRowID: Bool)

        var isExpert: Bool { self != .naive }
    }

    let tuning: Tuning
    private var handle: OpaquePointer?
    private var insert: OpaquePointer?
    private var select: OpaquePointer?

    /// Runs `sql` (a transaction's `BEGIN` or `COMMIT`, for a population in one transaction).
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw StashError(.io, "sqlite peer: \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    init(folder: URL, tuning: Tuning = .naive) throws {
        self.tuning = tuning
        try FileStore.createFolder(folder)
        let path = folder.appendingPathComponent("cache.sqlite").path
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            throw StashError(.io, "sqlite peer: cannot open", path: path)
        }
        let table = "CREATE TABLE IF NOT EXISTS entry (key TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, expires REAL)"
        let setup = switch tuning {
        case .naive: ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA mmap_size = \(1 << 30)", table]
        case let .expert(withoutRowID):
            // The locking mode first: WAL then keeps its index in the heap, not in shared memory.
            ["PRAGMA locking_mode = EXCLUSIVE", "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL",
             "PRAGMA mmap_size = \(1 << 30)", table + (withoutRowID ? " WITHOUT ROWID" : "")]
        }
        for sql in setup { try execute(sql) }
        sqlite3_prepare_v2(handle, "INSERT OR REPLACE INTO entry (key, data, expires) VALUES (?1, ?2, NULL)", -1, &insert, nil)
        sqlite3_prepare_v2(handle, "SELECT data, expires FROM entry WHERE key = ?1", -1, &select, nil)
    }

    deinit {
        if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "COMMIT", nil, nil, nil) }
        sqlite3_finalize(insert)
        sqlite3_finalize(select)
        sqlite3_close(handle)
    }

    var stagesWrites: Bool { tuning.isExpert }
    var readsFromManyThreads: Bool { false }

    func set(_ data: Data, _ key: String) throws {
        if tuning.isExpert, sqlite3_get_autocommit(handle) != 0 { try execute("BEGIN IMMEDIATE") }
        defer { sqlite3_reset(insert) }
        let status = key.withCString { cKey in
            data.withUnsafeBytes { bytes in
                sqlite3_bind_text(insert, 1, cKey, -1, nil)
                sqlite3_bind_blob(insert, 2, bytes.baseAddress, Int32(bytes.count), nil)
                return sqlite3_step(insert)
            }
        }
        guard status == SQLITE_DONE else { throw StashError(.io, "sqlite peer: insert failed (\(status))", key: key) }
    }

    func get(_ key: String) -> Data? {
        defer { sqlite3_reset(select) }
        return key.withCString { cKey -> Data? in
            sqlite3_bind_text(select, 1, cKey, -1, nil)
            guard sqlite3_step(select) == SQLITE_ROW else { return nil }
            if sqlite3_column_type(select, 1) != SQLITE_NULL, sqlite3_column_double(select, 1) <= Date().timeIntervalSince1970 {
                return nil
            }
            let count = Int(sqlite3_column_bytes(select, 0))
            guard let bytes = sqlite3_column_blob(select, 0) else { return Data() }
            return Data(bytes: bytes, count: count)
        }
    }

    /// Commits the writes since the last flush (`sqlite-expert`); `sqlite-raw` committed each.
    func flush() async throws {
        if sqlite3_get_autocommit(handle) == 0 { try execute("COMMIT") }
    }
}
