import Foundation
import Stash

/// `stash-bench preferences`: MMKV's published workload (10,000 each of write-int, read-int,
/// write-string, read-string; keys `int-<i>` / `str-<i>`, random ints, ~30-character
/// strings) on Stash's Preferences and Foundation's UserDefaults, same data, same order,
/// through the harness (``BenchContext/compareAsync(suite:case:_:extra:extraOf:)``). Then opening a suite
/// of 10,000 and 100,000 keys, the used bytes of each workload's file (`usedBytes` in the
/// results' extra fields), and three rounds of overwrites (the log must compact, not grow).
///
/// MMKV runs beside them when `STASH_BENCH_MMKV` names the driver that
/// `Scripts/build-mmkv-peer.sh` builds from MMKV's sources (``MMKVPeer``): the same keys and
/// values, interleaved with the other contenders, each of its samples timed by the driver
/// around the operations alone. Without it, the suite says how to enable it.
enum PreferencesSuite {
    static let suite = "preferences"
    /// UserDefaults+synchronize costs milliseconds per set: only this many operations.
    static let synchronizedOperations = 50
    /// A durable set waits for the device: fewer operations, so that a sample stays short.
    static let durableOperations = 1_000

    struct Workload {
        var intKeys: [String]
        var stringKeys: [String]
        var ints: [Int]
        var strings: [String]

        init(count: Int) {
            var generator = SystemRandomNumberGenerator()
            let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            intKeys = (0..<count).map { "int-\($0)" }
            stringKeys = (0..<count).map { "str-\($0)" }
            ints = (0..<count).map { _ in Int.random(in: .min ... .max, using: &generator) }
            strings = (0..<count).map { _ in String((0..<30).map { _ in alphabet.randomElement(using: &generator)! }) }
        }
    }

    @Sendable static func run(_ context: BenchContext) async throws {
        let scratch = try context.makeScratch(suite)
        defer { context.removeScratch(scratch) }
        let count = context.scaled(10_000)
        let work = Workload(count: count)

        let stash = try Preferences(url: scratch.appendingPathComponent("stash.stashprefs"))
        defer { stash.close() }
        let durable = try Preferences(url: scratch.appendingPathComponent("durable.stashprefs"), options: .durable)
        defer { durable.close() }
        let defaults = try UserDefaultsPeer(scratch: scratch)
        defer { defaults.remove() }
        let mmkv = try MMKVPeer(
            folder: scratch.appendingPathComponent("mmkv", isDirectory: true),
            intKeys: work.intKeys, ints: work.ints, stringKeys: work.stringKeys, strings: work.strings
        )
        defer { mmkv?.stop() }
        if mmkv == nil { context.reporter.note(MMKVPeer.howToEnable) }
        let durableCount = min(count, durableOperations)
        let synchronizedCount = min(count, synchronizedOperations)
        var sink = 0

        try await context.compareAsync(suite: suite, case: "write-int", asynchronous([
            Contender("stash") { try write(stash, work.intKeys, work.ints, count) },
            Contender("stash-durable") { try write(durable, work.intKeys, work.ints, durableCount) },
            Contender(FoundationPeer.userDefaults) { write(defaults.plain, work.intKeys, work.ints, count, synchronize: false) },
            Contender("UserDefaults+synchronize") { write(defaults.synchronized, work.intKeys, work.ints, synchronizedCount, synchronize: true) },
        ], mmkv?.contender("write-int \(count)")), extraOf: ["stash": ["usedBytes": String(try usedBytes(scratch, "ints") { try write($0, work.intKeys, work.ints, count) })]])
        // The read cases read what the write cases wrote; run without them (`--case read-int`),
        // they write it first, untimed, so that they never time reads of missing keys.
        if !context.runs("write-int") { try fill(stash, defaults, mmkv, work.intKeys, work.ints, count, request: "write-int") }
        try await context.compareAsync(suite: suite, case: "read-int", asynchronous([
            Contender("stash") {
                for i in 0..<count { sink &+= stash.integer(forKey: work.intKeys[i]) }
                return count
            },
            Contender(FoundationPeer.userDefaults) {
                for i in 0..<count { sink &+= defaults.plain.integer(forKey: work.intKeys[i]) }
                return count
            },
        ], mmkv?.contender("read-int \(count)")))
        try await context.compareAsync(suite: suite, case: "write-string", asynchronous([
            Contender("stash") { try write(stash, work.stringKeys, work.strings, count) },
            Contender("stash-durable") { try write(durable, work.stringKeys, work.strings, durableCount) },
            Contender(FoundationPeer.userDefaults) { write(defaults.plain, work.stringKeys, work.strings, count, synchronize: false) },
            Contender("UserDefaults+synchronize") { write(defaults.synchronized, work.stringKeys, work.strings, synchronizedCount, synchronize: true) },
        ], mmkv?.contender("write-string \(count)")), extraOf: ["stash": ["usedBytes": String(try usedBytes(scratch, "strings") { try write($0, work.stringKeys, work.strings, count) })]])
        if !context.runs("write-string") {
            try fill(stash, defaults, mmkv, work.stringKeys, work.strings, count, request: "write-string")
        }
        try await context.compareAsync(suite: suite, case: "read-string", asynchronous([
            Contender("stash") {
                for i in 0..<count { sink &+= stash.string(forKey: work.stringKeys[i])?.utf8.count ?? 0 }
                return count
            },
            Contender(FoundationPeer.userDefaults) {
                for i in 0..<count { sink &+= defaults.plain.string(forKey: work.stringKeys[i])?.utf8.count ?? 0 }
                return count
            },
        ], mmkv?.contender("read-string \(count)")))
        check(stash, work: work, count: count)
        if let mmkv, context.runs("write-int"), context.runs("write-string"), context.runsImpl(MMKVPeer.name) { _ = try mmkv.run("check") }

        try await measureOpen(context, scratch: scratch, keys: context.scaled(10_000), mmkv: mmkv)
        try await measureOpen(context, scratch: scratch, keys: context.scaled(100_000), mmkv: mmkv)
        try await measureOverwrites(context, scratch: scratch, work: work, count: count)
        try await crossInstanceObservation(context, scratch: scratch)
        if sink == 42 { context.reporter.note("") }
    }

    /// The contenders of a case as ``AsyncContender``s, with MMKV's, when it runs, last: so
    /// that one ``BenchContext/compareAsync(suite:case:_:extra:extraOf:)`` interleaves them all.
    private static func asynchronous(_ contenders: [Contender], _ mmkv: AsyncContender?) -> [AsyncContender] {
        contenders.map(AsyncContender.init) + (mmkv.map { [$0] } ?? [])
    }

    /// Sets `values[i]` under `keys[i]` for the first `count`.
    private static func write<Value: PreferenceStorable>(_ prefs: Preferences, _ keys: [String], _ values: [Value], _ count: Int) throws -> Int {
        for i in 0..<count { try prefs.set(values[i], forKey: keys[i]) }
        return count
    }

    /// Writes what a read case reads into every contender's store, untimed: `request` is the
    /// MMKV driver's write of the same values.
    private static func fill<Value: PreferenceStorable>(
        _ stash: Preferences, _ defaults: UserDefaultsPeer, _ mmkv: MMKVPeer?, _ keys: [String], _ values: [Value], _ count: Int,
        request: String
    ) throws {
        _ = try write(stash, keys, values, count)
        _ = write(defaults.plain, keys, values, count, synchronize: false)
        _ = try mmkv?.run("\(request) \(count)")
    }

    /// Sets `values[i]` under `keys[i]` for the first `count`, synchronizing after each set
    /// when asked.
    private static func write<Value>(_ defaults: UserDefaults, _ keys: [String], _ values: [Value], _ count: Int, synchronize: Bool) -> Int {
        for i in 0..<count {
            defaults.set(values[i], forKey: keys[i])
            if synchronize { defaults.synchronize() }
        }
        return count
    }

    /// The used bytes of a fresh suite after one run of a workload: what MMKV's file is
    /// compared with.
    private static func usedBytes(_ scratch: URL, _ name: String, _ workload: (Preferences) throws -> Int) throws -> Int {
        let prefs = try Preferences(url: scratch.appendingPathComponent("used-\(name).stashprefs"))
        defer { prefs.close() }
        _ = try workload(prefs)
        return prefs.storage.usedBytes
    }

    /// Checks that the reads read what was written.
    private static func check(_ prefs: Preferences, work: Workload, count: Int) {
        for i in 0..<count where prefs.integer(forKey: work.intKeys[i]) != work.ints[i]
            || prefs.string(forKey: work.stringKeys[i]) != work.strings[i] {
            FileHandle.standardError.write(Data("warning: reads returned unexpected values\n".utf8))
            return
        }
    }

    /// How long opening a suite of `keys` keys takes (reading and verifying its whole log).
    /// MMKV's suite holds the same keys and values, written by its driver.
    private static func measureOpen(_ context: BenchContext, scratch: URL, keys: Int, mmkv: MMKVPeer?) async throws {
        let name = "open-\(keys)-keys"
        guard context.runs(name) else { return }
        let url = scratch.appendingPathComponent("open-\(keys).stashprefs")
        let writer = try Preferences(url: url)
        for i in 0..<keys { try writer.set(i, forKey: "int-\(i)") }
        let used = writer.storage.usedBytes
        writer.close()
        let mmkv = context.runsImpl(MMKVPeer.name) ? mmkv : nil
        if let mmkv { _ = try mmkv.run("prepare-open \(keys)") }
        var keyCount = 0
        try await context.compareAsync(suite: suite, case: name, asynchronous([
            Contender("stash") {
                let opened = try Preferences(url: url)
                keyCount = opened.storage.keyCount
                opened.close()
                return 1
            },
        ], mmkv?.contender("open \(keys)")), extraOf: ["stash": ["usedBytes": String(used), "fileBytes": String(try FileStore.size(of: url))]])
        if keyCount != keys { FileHandle.standardError.write(Data("warning: open lost keys\n".utf8)) }
    }

    /// Three rounds of overwriting every key: the log must compact, not grow.
    private static func measureOverwrites(_ context: BenchContext, scratch: URL, work: Workload, count: Int) async throws {
        let prefs = try Preferences(url: scratch.appendingPathComponent("overwrite.stashprefs"))
        defer { prefs.close() }
        let rounds = 3
        try await context.compare(suite: suite, case: "overwrite-3-rounds", [
            Contender("stash") {
                for round in 0...rounds {
                    for i in 0..<count {
                        try prefs.set(work.ints[i] &+ round, forKey: work.intKeys[i])
                        try prefs.set(work.strings[i], forKey: work.stringKeys[i])
                    }
                }
                return 2 * count * (rounds + 1)
            },
        ])
        let storage = prefs.storage
        context.reporter.note(String(
            format: "preferences: after overwriting %d keys again and again: file %d bytes, used %d, live %d, compactions %d",
            2 * count, storage.fileSize, storage.usedBytes, storage.liveBytes, Int(storage.generation)
        ))
    }
}

/// Foundation's UserDefaults on a suite of its own, with its plist in the scratch folder
/// (XDG_CONFIG_HOME points there before Foundation first reads it) and removed afterwards.
final class UserDefaultsPeer {
    let plain: UserDefaults
    let synchronized: UserDefaults
    private let names: [String]

    init(scratch: URL) throws {
        let config = scratch.appendingPathComponent("config", isDirectory: true)
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        setenv("XDG_CONFIG_HOME", config.path, 1)
        let stamp = UInt32.random(in: 0...UInt32.max)
        names = ["stash-bench-plain-\(stamp)", "stash-bench-sync-\(stamp)"]
        guard let plain = UserDefaults(suiteName: names[0]), let synchronized = UserDefaults(suiteName: names[1]) else {
            throw StashError(.io, "UserDefaults(suiteName:) failed")
        }
        self.plain = plain
        self.synchronized = synchronized
    }

    func remove() {
        for name in names { UserDefaults.standard.removePersistentDomain(forName: name) }
    }
}
