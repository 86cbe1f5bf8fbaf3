import Foundation
import Observation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

extension Preferences.Key where Value == Int {
    fileprivate static let level = Preferences.Key("level", default: 7)
}

/// A model as an app writes one: `@Observable`, its preference behind the wrapper.
@Observable private final class LevelModel {
    var title = "level"
    @ObservationIgnored @Preference<Int> var level: Int

    init(store: Preferences) {
        _level = Preference(.level, store: store)
    }
}

/// A plain struct holding the wrapper: no Observation on the type itself.
private struct LevelHolder {
    @Preference<Int> var level: Int
}

/// `Preferences.Observed` and `@Preference`: a read inside `withObservationTracking` is
/// tracked, and a change of that key, from anywhere, fires `onChange` once.
@Suite struct ObservedPreferenceTests {
    let folder = TemporaryFolder("prefs-observed")
    var file: URL { folder.file("observed.stashprefs") }

    @Test func aTrackedReadFiresOnAChangeOfItsKeyOnly() throws {
        let prefs = try Preferences(url: file)
        let level = prefs.observed(.level)
        var seen = 0
        let firings = ObservationFirings { seen = level.value }
        #expect(seen == 7)
        try prefs.set("other", forKey: "name")
        #expect(firings.count == 0, "a change of another key must not fire")
        try prefs.set(3, for: .level)
        #expect(firings.count == 1, "the change is delivered before the write returns")
        #expect(level.value == 3)
        try prefs.set(4, for: .level)
        #expect(firings.count == 1, "a tracking fires once")
    }

    @Test func aChangeFromAnotherTaskFires() async throws {
        let prefs = try Preferences(url: file)
        let level = prefs.observed(.level)
        let firings = ObservationFirings { _ = level.value }
        let writer = Task.detached { try prefs.set(42, for: .level) }
        try await writer.value
        #expect(await eventually { firings.count > 0 })
        #expect(firings.count == 1)
        #expect(level.value == 42)
    }

    @Test func aChangeFromAnotherProcessFires() async throws {
        let prefs = try Preferences(url: file)
        let level = prefs.observed(.level)
        let firings = ObservationFirings { _ = level.value }
        let child = try ChildProcess.testHost("preferences.count", file.path, "level", "1")
        #expect(child.readAllLines() == ["ready", "done"])
        #expect(child.wait() == 0)
        // Within the store's watch interval; 10 s at most before this fails.
        #expect(await eventually { firings.count > 0 })
        #expect(firings.count == 1)
        #expect(level.value == 1, "the child incremented a missing key to 1")
    }

    @Test func theWrapperInAnObservableModelIsTracked() throws {
        let prefs = try Preferences(url: file)
        let model = LevelModel(store: prefs)
        let firings = ObservationFirings { _ = model.level }
        model.title = "renamed"
        #expect(firings.count == 0)
        model.level = 9
        #expect(firings.count == 1)
        #expect(prefs[.level] == 9, "assigning stores the value")
        #expect(model.$level.lastError == nil)
        // Another store on the same file sees it after a reopen too.
        #expect(try Preferences(url: file)[.level] == 9)
    }

    /// The durability promise: an assignment through the wrapper survives a kill of the
    /// process the moment it returned.
    @Test func anAssignmentThroughTheWrapperSurvivesACrash() throws {
        let child = try ChildProcess.testHost("preferences.observed-set", file.path, "level", "11")
        #expect(child.readLine() == "set", "child failed: \(child.standardError())")
        child.kill()
        child.wait()
        #expect(try Preferences(url: file)[.level] == 11)
    }

    @Test func theWrapperWorksInAnyTypeAndCopiesShareTheValue() throws {
        let prefs = try Preferences(url: file)
        let holder = LevelHolder(level: Preference(.level, store: prefs))
        let copy = holder
        #expect(holder.level == 7)
        holder.level = 12
        #expect(copy.level == 12)
        try prefs.removeValue(forKey: "level")
        #expect(holder.level == 7, "a removed value reads as the default")
    }

    @Test func aFailedAssignmentKeepsTheValueAndSaysWhy() throws {
        let prefs = try Preferences(url: file)
        let level = prefs.observed(.level)
        level.value = 5
        let firings = ObservationFirings { _ = level.lastError }
        prefs.close()
        level.value = 6
        #expect(level.value == 5)
        #expect(level.lastError?.code == .closed)
        #expect(firings.count == 1, "lastError is tracked")
        #expect(throws: StashError.self) { try level.set(6) }
    }

    @Test func aValueOfAnotherTypeReadsAsTheDefault() throws {
        let prefs = try Preferences(url: file)
        try prefs.set("not a number", forKey: "level")
        let level = prefs.observed(.level)
        #expect(level.value == 7)
        try prefs.set(2, forKey: "level")
        #expect(level.value == 2)
        try level.reset()
        #expect(level.value == 7)
        #expect(prefs.object(forKey: "level") == nil)
    }

    @Test func aReleasedObjectStopsWatching() throws {
        let prefs = try Preferences(url: file)
        do {
            let level = prefs.observed(.level)
            _ = level.value
            #expect(prefs.observers.withLock { $0.observers.count } == 1)
            #expect(prefs.observers.withLock { $0.timer != nil })
        }
        #expect(prefs.observers.withLock { $0.observers.count } == 0)
        #expect(prefs.observers.withLock { $0.timer == nil }, "the last observer gone, the watch stops")
    }
}
