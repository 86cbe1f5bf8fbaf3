import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// Reads run side by side, each reading its record outside the cache's lock: while the
/// writer replaces every value, flushes and compacts, each read on any thread returns a value
/// the key had, and never one older than a read of the same key before it on the same thread.
struct DiskCacheConcurrentReadTests {
    let fixture = DiskCacheFixture()

    static let keys = 200
    static let rounds = 40

    /// The value of key `index` written in round `round`: both are in its first bytes.
    static func value(_ index: Int, _ round: Int) -> Data {
        var bytes = [UInt8(index & 0xFF), UInt8(index >> 8), UInt8(round)]
        bytes += [UInt8](repeating: UInt8(truncatingIfNeeded: index &+ round), count: 400)
        return Data(bytes)
    }

    @Test func readersNeverSeeAnotherKeysValueNorGoBackInTime() async throws {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        for index in 0..<Self.keys { try cache.set(Self.value(index, 0), forKey: "k\(index)") }
        try await cache.flush()
        let stop = LockedValue(false)
        let readers = (0..<4).map { reader in
            ThreadTask { () -> [String] in
                var problems: [String] = []
                var seen = [Int](repeating: 0, count: Self.keys)
                var index = reader * 37
                while !stop.withLock({ $0 }) && problems.count < 5 {
                    index = (index + 1) % Self.keys
                    guard let data = cache.data(forKey: "k\(index)") else {
                        problems.append("k\(index) missing")
                        continue
                    }
                    let round = Int(data[2])
                    if data != Self.value(index, round) { problems.append("k\(index): a value it never had") }
                    if round < seen[index] { problems.append("k\(index): round \(round) after round \(seen[index])") }
                    seen[index] = max(seen[index], round)
                }
                return problems
            }
        }
        let writer = ThreadTask { () -> Result<Void, any Error> in
            Result {
                for round in 1...Self.rounds {
                    for index in 0..<Self.keys { try cache.set(Self.value(index, round), forKey: "k\(index)") }
                    try cache.queue.sync {
                        try cache.flushNow()
                        if round % 8 == 0 { try cache.compactIfDue() }
                    }
                }
            }
        }
        try await writer.value.get()
        stop.withLock { $0 = true }
        for reader in readers { #expect(await reader.value == []) }
        for index in 0..<Self.keys { #expect(cache.data(forKey: "k\(index)") == Self.value(index, Self.rounds)) }
        try cache.close()
    }

    /// A read that finds an expired record through the index removes the entry; a value
    /// written meanwhile must survive that: the read checks, after reading the record outside
    /// the lock, that the key has no newer change before it stages the removal. Values expire,
    /// then each round readers race a writer that writes every key again without an expiry.
    @Test func anExpiredReadNeverRemovesAValueWrittenMeanwhile() async throws {
        let cache = try fixture.open { $0.flushDelay = 3600 }
        var lost: [String] = []
        for round in 1...30 {
            for index in 0..<Self.keys { try cache.set(Self.value(index, 0), forKey: "k\(index)", expiry: .after(10)) }
            try await cache.flush()
            fixture.clock.advance(by: 20)
            let stop = LockedValue(false)
            let readers = (0..<3).map { reader in
                ThreadTask { () -> Void in
                    var index = reader * 67
                    while !stop.withLock({ $0 }) {
                        index = (index + 1) % Self.keys
                        _ = cache.data(forKey: "k\(index)")
                    }
                }
            }
            for index in 0..<Self.keys { try cache.set(Self.value(index, round), forKey: "k\(index)") }
            stop.withLock { $0 = true }
            for reader in readers { await reader.value }
            try await cache.flush()
            lost += (0..<Self.keys).filter { cache.data(forKey: "k\($0)") != Self.value($0, round) }.map { "round \(round): k\($0)" }
        }
        #expect(lost.isEmpty, "\(lost.prefix(10))")
        try cache.close()
    }
}
