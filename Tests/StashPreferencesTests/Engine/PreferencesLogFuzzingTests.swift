import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// The fuzz entry survives the inputs a fuzzer starts from and mutates: logs of every
/// format, cut at many lengths, with bytes flipped, and bytes that are no log at all.
@Suite struct PreferencesLogFuzzingTests {
    let folder = TemporaryFolder("prefs-fuzz")

    func fuzz(_ bytes: Data) {
        bytes.withUnsafeBytes { PreferencesLogFuzzing.run($0) }
    }

    /// A current-format log with values of every kind, expiring ones and removals.
    func currentLog() throws -> Data {
        let url = folder.file("sample.stashprefs")
        let prefs = try Preferences(url: url)
        try prefs.set(["a": [1, 2], "b": [3]], forKey: "nested")
        try prefs.set(-12345, forKey: "int")
        try prefs.set("text", forKey: "string", expiry: .after(3600))
        try prefs.set(UUID(), forKey: "uuid")
        try prefs.removeValue(forKey: "int")
        try prefs.removeAll()
        try prefs.set(Data([0, 1, 2]), forKey: "data")
        prefs.close()
        let bytes = try FileStore.read(url)
        return bytes.prefix(LogLayout.newestCommit(bytes).commit.end)
    }

    @Test func truncatedLogsOfEveryFormat() throws {
        for log in [FormatVersion1Fixture.bytes, FormatVersion2Fixture.bytes, try currentLog()] {
            for length in stride(from: 0, through: log.count, by: 5) { fuzz(log.prefix(length)) }
        }
    }

    @Test func flippedBytes() throws {
        let seed: UInt64 = 0xF0_22ED
        print("PreferencesLogFuzzingTests seed \(seed)")
        var generator = SeededGenerator(seed: seed)
        for log in [FormatVersion1Fixture.bytes, FormatVersion2Fixture.bytes, try currentLog()] {
            for _ in 0..<150 {
                var bytes = log
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                fuzz(bytes)
            }
        }
    }

    @Test func bytesThatAreNoLog() {
        fuzz(Data())
        fuzz(Data([0]))
        fuzz(Data(repeating: 0xFF, count: 200))
        fuzz(Data("STASHPRF".utf8) + Data(repeating: 0, count: 100))
        // A length varint that claims the whole address space.
        fuzz(Data("STASHPRF".utf8) + Data(repeating: 0, count: 56) + Data([1, 2, 3, 4, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x10]))
    }
}
