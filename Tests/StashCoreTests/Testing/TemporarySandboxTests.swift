import Foundation
import StashCore
import StashTesting
import Testing

struct TemporarySandboxTests {
    @Test func startsEmptyAndRemovesEverythingOnRelease() throws {
        var temporary: TemporarySandbox? = try TemporarySandbox(app: "com.example.temp", label: "sandbox-test")
        let root = temporary!.root
        let documents = try temporary!.sandbox.url(for: .documents)
        try FileStore.write(Data("x".utf8), to: documents.appendingPathComponent("a.txt"))
        #expect(documents.path.hasPrefix(root.path))
        #expect(FileStore.exists(documents.appendingPathComponent("a.txt")))
        temporary = nil
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }

    @Test func refusesAnUnsafeIdentifier() {
        #expect(throws: StashError.self) { _ = try TemporarySandbox(app: "../escape") }
    }

    @Test func manualClockComesWithIt() {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 0))
        clock.advance(by: 60)
        #expect(clock.now == Date(timeIntervalSince1970: 60))
    }
}
