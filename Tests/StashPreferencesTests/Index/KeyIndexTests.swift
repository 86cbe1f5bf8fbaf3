import StashTestSupport
import Testing
@testable import StashPreferences

@Suite struct KeyIndexTests {
    private func entry(_ number: Int) -> PreferencesEngine.Entry {
        PreferencesEngine.Entry(value: .integer(Int64(number)), expiry: nil, offset: number, length: 1)
    }

    /// Random sets, overwrites, removals and clears against a Dictionary: after each step
    /// the index answers every key of the pool as the Dictionary does, and its keys and
    /// entries stay paired.
    @Test func matchesADictionaryThroughRandomChanges() {
        let seed = SeededGenerator.freshSeed(for: "KeyIndex.matchesADictionaryThroughRandomChanges")
        var generator = SeededGenerator(seed: seed)
        // Keys of every length around the 8-byte words the hash reads, some not ASCII.
        let pool = (0..<600).map { i in
            String(repeating: "k", count: i % 19) + "\(i)" + (i % 7 == 0 ? "é" : "")
        }
        var index = KeyIndex()
        var model: [String: Int] = [:]
        for step in 0..<20_000 {
            let key = pool[Int.random(in: 0..<pool.count, using: &generator)]
            switch Int.random(in: 0..<100, using: &generator) {
            case 0:
                index.removeAll(keepingCapacity: Bool.random(using: &generator))
                model.removeAll()
            case 1..<40:
                #expect(index.removeValue(forKey: key)?.offset == model.removeValue(forKey: key), "seed \(seed) step \(step)")
            default:
                #expect(index.updateValue(entry(step), forKey: key)?.offset == model.updateValue(step, forKey: key), "seed \(seed) step \(step)")
            }
            #expect(index.count == model.count, "seed \(seed) step \(step)")
            if step % 500 == 0 || step == 19_999 {
                for key in pool where index[key]?.offset != model[key] {
                    Issue.record("seed \(seed) step \(step): \(key) is \(String(describing: index[key]?.offset)), not \(String(describing: model[key]))")
                    return
                }
                for element in index.elements where model[element.key] != element.entry.offset {
                    Issue.record("seed \(seed) step \(step): \(element.key) lists \(element.entry.offset)")
                    return
                }
            }
        }
    }

    @Test func growsFromEmptyAndFromAReservation() {
        for var index in [KeyIndex(), KeyIndex(capacity: 3), KeyIndex(capacity: 100_000)] {
            #expect(index["missing"] == nil)
            for i in 0..<5_000 { index.updateValue(entry(i), forKey: "int-\(i)") }
            #expect(index.count == 5_000)
            let allFound = (0..<5_000).allSatisfy { (i: Int) in index["int-\(i)"]?.offset == i }
            #expect(allFound)
            for i in stride(from: 0, to: 5_000, by: 2) { index.removeValue(forKey: "int-\(i)") }
            #expect(index.count == 2_500)
            let oddsLeft = (0..<5_000).allSatisfy { (i: Int) in index["int-\(i)"]?.offset == (i % 2 == 0 ? nil : i) }
            #expect(oddsLeft)
        }
    }

    /// Loading the slots of keys about to be set (what an open does for each group) changes
    /// nothing, whatever the index holds.
    @Test func prefetchChangesNothing() {
        for var index in [KeyIndex(), KeyIndex(capacity: 10)] {
            let keys = (0..<40).map { "key-\($0)" }
            index.prefetch(keys.map { KeyHash.hash($0).hash })
            for (i, key) in keys.enumerated() {
                index.prefetch([KeyHash.hash(key).hash, 0, .max])
                index.updateValue(entry(i), forKey: key)
            }
            #expect(index.count == keys.count)
            let allFound = keys.indices.allSatisfy { (i: Int) in index[keys[i]]?.offset == i }
            #expect(allFound)
        }
    }

    @Test func hashTellsPlainASCIIKeys() {
        for length in 0..<20 {
            let plain = String(repeating: "a", count: length)
            #expect(KeyHash.hash(plain).isPlainASCII)
            for position in 0..<length {
                var bytes = Array(plain.utf8)
                bytes[position] = 0
                #expect(!KeyHash.hash(String(decoding: bytes, as: UTF8.self)).isPlainASCII, "NUL at \(position) of \(length)")
                bytes[position] = 0xC3
                bytes.insert(0xA9, at: position + 1)
                #expect(!KeyHash.hash(String(decoding: bytes, as: UTF8.self)).isPlainASCII, "é at \(position) of \(length)")
            }
        }
        // Equal keys hash equally however they were made; neighbours differ.
        let built = String(["in", "t-", "12"].joined()) + String(34)
        #expect(KeyHash.hash(built).hash == KeyHash.hash("int-1234").hash)
        #expect(KeyHash.hash("int-1234").hash != KeyHash.hash("int-1235").hash)
        #expect(KeyHash.hash("a").hash != KeyHash.hash("a\u{1}").hash)
    }
}
