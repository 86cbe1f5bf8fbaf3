import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// The first `count` elements of `stream`, or a failure after `seconds`.
func first<S: AsyncSequence & Sendable>(_ count: Int, of stream: S, within seconds: Double = 10) async throws -> [S.Element]
where S.Element: Sendable {
    try await withThrowingTaskGroup(of: [S.Element]?.self) { group in
        group.addTask {
            var elements: [S.Element] = []
            for try await element in stream {
                elements.append(element)
                if elements.count == count { break }
            }
            return elements
        }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            return nil
        }
        let result = try await group.next() ?? nil
        group.cancelAll()
        return try #require(result, "timed out waiting for \(count) elements")
    }
}

@Suite struct ObservationTests {
    let folder = TemporaryFolder("prefs-observe")
    var file: URL { folder.file("observed.stashprefs") }

    @Test func changesReportEverySetAndRemoval() async throws {
        let prefs = try Preferences(url: file)
        let changes = prefs.changes()
        try prefs.set(1, forKey: "a")
        try prefs.set("x", forKey: "b")
        try prefs.removeValue(forKey: "a")
        let seen = try await first(3, of: changes)
        #expect(seen == [
            PreferenceChange(key: "a", value: .integer(1), isFromOtherProcess: false),
            PreferenceChange(key: "b", value: .string("x"), isFromOtherProcess: false),
            PreferenceChange(key: "a", value: nil, isFromOtherProcess: false),
        ])
    }

    @Test func changesForAKeyIgnoreOtherKeys() async throws {
        let prefs = try Preferences(url: file)
        let changes = prefs.changes(forKey: "theme")
        try prefs.set(1, forKey: "other")
        try prefs.set("dark", forKey: "theme")
        let seen = try await first(1, of: changes)
        #expect(seen.map(\.key) == ["theme"])
    }

    @Test func valuesStartWithTheCurrentValue() async throws {
        let prefs = try Preferences(url: file)
        let volume = Preferences.Key("volume", default: 0.5)
        prefs[volume] = 0.6
        let values = prefs.values(for: volume)
        prefs[volume] = 0.7
        try prefs.removeValue(for: volume)
        #expect(try await first(3, of: values) == [0.6, 0.7, 0.5])
    }

    @Test func anotherInstancesChangesAreWatched() async throws {
        let watcher = try Preferences(url: file)
        let writer = try Preferences(url: file)
        let changes = watcher.changes()
        try writer.set(42, forKey: "answer")
        let seen = try await first(1, of: changes)
        #expect(seen == [PreferenceChange(key: "answer", value: .integer(42), isFromOtherProcess: true)])
    }

    @Test func closingEndsTheStreams() async throws {
        let prefs = try Preferences(url: file)
        let changes = prefs.changes()
        prefs.close()
        var count = 0
        for await _ in changes { count += 1 }
        #expect(count == 0)
    }
}
