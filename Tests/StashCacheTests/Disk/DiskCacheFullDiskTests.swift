import Foundation
import Logging
import StashCache
import StashCore
import StashTestSupport
import Testing

/// A real full disk: a 2 MB tmpfs (root only; skipped with a message otherwise). Once a
/// flush failed for lack of space, `set` throws `.diskFull` until a flush succeeds, `close()`
/// throws what it could not write, the background retry logs once, and every value a
/// successful flush acknowledged is there after a reopen.
struct DiskCacheFullDiskTests {
    func mountVolume() throws -> SmallVolume {
        guard let volume = try SmallVolume.forTest(megabytes: 2) else { try Test.cancel(Comment(rawValue: SmallVolume.unavailable)) }
        return volume
    }

    func configuration(_ log: LogMessages) -> DiskCache.Configuration {
        var configuration = DiskCache.Configuration()
        configuration.flushDelay = 0.01
        configuration.logger = log.logger
        return configuration
    }

    @Test func setsAreRefusedAfterAFlushRanOutOfSpaceUntilOneSucceeds() async throws {
        let volume = try mountVolume()
        let directory = volume.url.appendingPathComponent("cache", isDirectory: true)
        let log = LogMessages()
        let cache = try DiskCache(directory: directory, configuration: configuration(log))
        let filler = volume.url.appendingPathComponent("filler")
        // Half the volume: deleting it later leaves room for the staged values and the WAL.
        try FileStore.write(Data(count: 1024 * 1024), to: filler, durability: .processSafe)

        var flushed: [String: Data] = [:]       // acknowledged by a successful flush
        var staged: [String: Data] = [:]
        var flushError: StashError?
        var index = 0
        fill: while index < 10_000 {
            for _ in 0..<50 {
                let key = "key-\(index)", value = Data("value \(index) ".utf8) + Data(repeating: UInt8(index % 251), count: 2000)
                index += 1
                do {
                    try cache.set(value, forKey: key)
                    staged[key] = value
                } catch let error as StashError where error.code == .diskFull {
                    flushError = error      // the background flush failed first
                    break fill
                }
            }
            do {
                try await cache.flush()
                flushed.merge(staged) { $1 }
                staged = [:]
            } catch let error as StashError {
                #expect(error.code == .diskFull, "\(error)")
                flushError = error
                break
            }
        }
        let failure = try #require(flushError, "2 MB never filled up after \(index) sets")
        #expect(failure.code == .diskFull)

        // From now on every set is refused, without touching the disk, and names the cache.
        for attempt in 0..<20 {
            do {
                try cache.set(Data("late".utf8), forKey: "late-\(attempt)")
                Issue.record("set \(attempt) after a full-disk flush returned")
            } catch let error as StashError {
                #expect(error.code == .diskFull)
                #expect(error.path?.hasSuffix(".tmp") == false, "\(error)")
            }
        }
        #expect(cache.data(forKey: "late-0") == nil)
        // Staged values stay readable meanwhile.
        for (key, value) in staged.prefix(20) { #expect(cache.data(forKey: key) == value) }

        // Space comes back: a flush succeeds and sets are accepted again.
        try FileStore.delete(filler)
        try await cache.flush()
        flushed.merge(staged) { $1 }
        try cache.set(Data("after".utf8), forKey: "after")
        flushed["after"] = Data("after".utf8)
        try cache.close()

        // Logged once per run of failures: a new run starts only after a logged recovery
        // (space may come and go as SQLite checkpoints), never once per retry.
        let failures = log.all.filter { $0.level == .error && $0.message.hasPrefix("background flush") }
        let recoveries = log.all.filter { $0.message.contains("succeeded again") }
        #expect(failures.count <= recoveries.count + 1, "\(log.all.map(\.message))")

        let reopened = try DiskCache(directory: directory, configuration: configuration(log))
        for (key, value) in flushed { #expect(reopened.data(forKey: key) == value, "\(key)") }
        #expect(reopened.count == flushed.count)
        try reopened.close()
    }

    @Test func closeThrowsWhatItCouldNotWrite() async throws {
        let volume = try mountVolume()
        let directory = volume.url.appendingPathComponent("cache", isDirectory: true)
        let log = LogMessages()
        var configuration = configuration(log)
        configuration.flushDelay = 3600     // only explicit flushes
        let cache = try DiskCache(directory: directory, configuration: configuration)
        try cache.set(Data("kept".utf8), forKey: "kept")
        try await cache.flush()
        // Fill the volume to the last byte, then stage more than the manifest can take.
        let filler = volume.url.appendingPathComponent("filler")
        try? FileStore.write(Data(count: volume.freeBytes), to: filler, durability: .processSafe)
        var chunk = 64 * 1024, number = 0
        while chunk >= 512 {
            number += 1
            let extra = volume.url.appendingPathComponent("filler-\(number)")
            if (try? FileStore.write(Data(count: chunk), to: extra, durability: .processSafe)) == nil { chunk /= 2 }
        }
        for index in 0..<500 { try cache.set(Data(repeating: 7, count: 4000), forKey: "lost-\(index)") }
        do {
            try cache.close()
            Issue.record("close returned although 2 MB of staged values did not fit")
        } catch let error as StashError {
            #expect(error.code == .diskFull, "\(error)")
            #expect(error.reason.contains("staged changes"), "\(error)")
        }
        #expect(cache.data(forKey: "kept") == nil)    // closed
        for name in try FileStore.list(volume.url) where name.hasPrefix("filler") {
            try FileStore.delete(volume.url.appendingPathComponent(name))
        }
        let reopened = try DiskCache(directory: directory, configuration: configuration)
        #expect(reopened.data(forKey: "kept") == Data("kept".utf8))
        try reopened.close()
    }

    @Test func aFileBackedSetOnAFullDiskNamesItsFileNotTheTemporaryOne() throws {
        let volume = try mountVolume()
        let log = LogMessages()
        let cache = try DiskCache(directory: volume.url.appendingPathComponent("cache", isDirectory: true), configuration: configuration(log))
        do {
            try cache.set(Data(count: 3 * 1024 * 1024), forKey: "https://example.com/big.png")
            Issue.record("a 3 MB set on a 2 MB volume returned")
        } catch let error as StashError {
            #expect(error.code == .diskFull, "\(error)")
            let path = try #require(error.path)
            #expect(path.hasSuffix(".png") && !path.contains("/."), "\(path)")
        }
        #expect(cache.data(forKey: "https://example.com/big.png") == nil)
        try cache.close()
        #expect(try FileStore.list(volume.url.appendingPathComponent("cache/files")).isEmpty)
    }
}
