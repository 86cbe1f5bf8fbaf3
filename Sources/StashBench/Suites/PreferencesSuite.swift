import Foundation
import Stash

/// `stash-bench preferences`: MMKV's published workload (10,000 each of write-int, read-int,
/// write-string, read-string; keys `int-<i>` / `str-<i>`, random ints, ~30-character
/// strings) on Stash's Preferences and Foundation's UserDefaults, same data, same order.
/// Then Stash's open time with 10,000 and 100,000 keys, and its file size after three
/// rounds of overwrites.
enum PreferencesSuite {
    static let suite = "preferences"
    /// UserDefaults+synchronize costs milliseconds per set: only this many operations.
    static let synchronizedOperations = 500

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
        try runStash(context, stash, impl: "stash", work: work, count: count)
        stash.close()
        let durable = try Preferences(url: scratch.appendingPathComponent("durable.stashprefs"), options: .durable)
        try runStash(context, durable, impl: "stash-durable", work: work, count: count)
        durable.close()

        let defaults = try UserDefaultsPeer(scratch: scratch)
        defer { defaults.remove() }
        runUserDefaults(context, defaults.plain, impl: "UserDefaults", synchronize: false, work: work, count: count)
        runUserDefaults(context, defaults.synchronized, impl: "UserDefaults+synchronize", synchronize: true,
                        work: work, count: min(count, synchronizedOperations))

        try measureOpen(context, scratch: scratch, keys: context.scaled(10_000))
        try measureOpen(context, scratch: scratch, keys: context.scaled(100_000))
        try measureOverwrites(context, scratch: scratch, work: work, count: count)
    }

    private static func runStash(_ context: BenchContext, _ prefs: Preferences, impl: String, work: Workload, count: Int) throws {
        var sink = 0
        try context.measure(suite: suite, case: "write-int", impl: impl, ops: count) {
            for i in 0..<count { try prefs.set(work.ints[i], forKey: work.intKeys[i]) }
        }
        context.measure(suite: suite, case: "read-int", impl: impl, ops: count) {
            for i in 0..<count { sink &+= prefs.integer(forKey: work.intKeys[i]) }
        }
        try context.measure(suite: suite, case: "write-string", impl: impl, ops: count) {
            for i in 0..<count { try prefs.set(work.strings[i], forKey: work.stringKeys[i]) }
        }
        context.measure(suite: suite, case: "read-string", impl: impl, ops: count) {
            for i in 0..<count { sink &+= prefs.string(forKey: work.stringKeys[i])?.utf8.count ?? 0 }
        }
        check(sink, work: work, count: count)
    }

    private static func runUserDefaults(
        _ context: BenchContext, _ defaults: UserDefaults, impl: String, synchronize: Bool, work: Workload, count: Int
    ) {
        var sink = 0
        context.measure(suite: suite, case: "write-int", impl: impl, ops: count) {
            for i in 0..<count {
                defaults.set(work.ints[i], forKey: work.intKeys[i])
                if synchronize { defaults.synchronize() }
            }
        }
        context.measure(suite: suite, case: "read-int", impl: impl, ops: count) {
            for i in 0..<count { sink &+= defaults.integer(forKey: work.intKeys[i]) }
        }
        context.measure(suite: suite, case: "write-string", impl: impl, ops: count) {
            for i in 0..<count {
                defaults.set(work.strings[i], forKey: work.stringKeys[i])
                if synchronize { defaults.synchronize() }
            }
        }
        context.measure(suite: suite, case: "read-string", impl: impl, ops: count) {
            for i in 0..<count { sink &+= defaults.string(forKey: work.stringKeys[i])?.utf8.count ?? 0 }
        }
        check(sink, work: work, count: count)
    }

    /// Keeps the reads from being optimised away, and checks that they read what was written.
    private static func check(_ sink: Int, work: Workload, count: Int) {
        var expected = 0
        for i in 0..<count { expected &+= work.ints[i] &+ work.strings[i].utf8.count }
        if sink != expected { FileHandle.standardError.write(Data("warning: reads returned unexpected values\n".utf8)) }
    }

    /// How long opening a suite of `keys` keys takes (reading and verifying its whole log).
    private static func measureOpen(_ context: BenchContext, scratch: URL, keys: Int) throws {
        let url = scratch.appendingPathComponent("open-\(keys).stashprefs")
        let writer = try Preferences(url: url)
        for i in 0..<keys { try writer.set(i, forKey: "int-\(i)") }
        writer.close()
        var opened: Preferences?
        try context.measure(suite: suite, case: "open-\(keys)-keys", impl: "stash", ops: 1,
                            extra: ["fileBytes": String(try FileStore.size(of: url))]) {
            opened = try Preferences(url: url)
        }
        if opened?.keys.count != keys { FileHandle.standardError.write(Data("warning: open lost keys\n".utf8)) }
    }

    /// Three rounds of overwriting every key: the log must compact, not grow.
    private static func measureOverwrites(_ context: BenchContext, scratch: URL, work: Workload, count: Int) throws {
        let prefs = try Preferences(url: scratch.appendingPathComponent("overwrite.stashprefs"))
        let rounds = 3
        let seconds = try context.measure(suite: suite, case: "overwrite-3-rounds", impl: "stash", ops: 2 * count * (rounds + 1)) {
            for round in 0...rounds {
                for i in 0..<count {
                    try prefs.set(work.ints[i] &+ round, forKey: work.intKeys[i])
                    try prefs.set(work.strings[i], forKey: work.stringKeys[i])
                }
            }
        }
        let storage = prefs.storage
        context.reporter.note(String(
            format: "preferences: after %d rounds of overwriting %d keys (%.3f s): file %d bytes, used %d, live %d, compactions %d",
            rounds, 2 * count, seconds, storage.fileSize, storage.usedBytes, storage.liveBytes, Int(storage.generation)
        ))
        prefs.close()
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
