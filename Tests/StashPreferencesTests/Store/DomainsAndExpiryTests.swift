import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

@Suite struct DomainsAndExpiryTests {
    let folder = TemporaryFolder("prefs-domains")
    var file: URL { folder.file("domains.stashprefs") }

    @Test func registeredDefaultsAreReadButNeverWritten() throws {
        let prefs = try Preferences(url: file)
        prefs.register(defaults: ["theme": .string("light"), "size": .integer(12)])
        try prefs.register(defaults: ["bold": true])
        #expect(prefs.string(forKey: "theme") == "light")
        #expect(prefs.bool(forKey: "bold"))
        try prefs.set("dark", forKey: "theme")
        #expect(prefs.string(forKey: "theme") == "dark")
        #expect(prefs.keys == ["theme"])
        #expect(prefs.dictionaryRepresentation() == ["theme": .string("dark"), "size": .integer(12), "bold": .bool(true)])
        prefs.close()
        let reopened = try Preferences(url: file)
        #expect(reopened.object(forKey: "size") == nil)
        #expect(reopened.keys == ["theme"])
    }

    @Test func volatileValuesOverrideAndAreNeverWritten() throws {
        let prefs = try Preferences(url: file)
        try prefs.set(1, forKey: "level")
        prefs.setVolatile(.integer(99), forKey: "level")
        #expect(prefs.integer(forKey: "level") == 99)
        #expect(prefs.dictionaryRepresentation()["level"] == .integer(99))
        #expect(prefs.storedValues()["level"] == .integer(1))
        prefs.setVolatile(nil, forKey: "level")
        #expect(prefs.integer(forKey: "level") == 1)
        prefs.setVolatile(.bool(true), forKey: "demo")
        prefs.close()
        #expect(try Preferences(url: file).object(forKey: "demo") == nil)
    }

    @Test func removeAllRemovesEveryStoredKey() throws {
        let prefs = try Preferences(url: file)
        for i in 0..<50 { try prefs.set(i, forKey: "k\(i)") }
        try prefs.removeAll()
        try prefs.set("after", forKey: "new")
        #expect(prefs.keys == ["new"])
        prefs.close()
        #expect(try Preferences(url: file).keys == ["new"])
    }

    @Test func expiryIsTheCachesPolicyAtADateOrAfterSecondsNeverSliding() throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_000_000))
        let prefs = try Preferences(url: file, clock: clock)
        try prefs.set("sale", forKey: "banner", expiry: .at(Date(timeIntervalSince1970: 1_000_030)))
        let error = #expect(throws: StashError.self) { try prefs.set(1, forKey: "slides", expiry: .sliding(10)) }
        #expect(error?.code == .unsupportedValue && error?.key == "slides")
        #expect(prefs.object(forKey: "slides") == nil)
        clock.advance(by: 29)
        #expect(prefs.string(forKey: "banner") == "sale")
        clock.advance(by: 1)
        #expect(prefs.string(forKey: "banner") == nil)
    }

    @Test func onlyAWriteWithAnExpiryReadsTheClock() throws {
        let clock = CountingClock(now: Date(timeIntervalSince1970: 1_000_000))
        let prefs = try Preferences(url: file, clock: clock)
        let before = clock.reads
        for i in 0..<100 { try prefs.set(i, forKey: "k\(i % 10)") }
        try prefs.removeValue(forKey: "k0")
        #expect(clock.reads == before)
        try prefs.set(5, forKey: "cached", expiry: .after(10))
        #expect(clock.reads > before)
        clock.now = Date(timeIntervalSince1970: 1_000_010)
        #expect(prefs.object(forKey: "cached") == nil)
    }

    @Test func aStoreSaysWhetherItsValuesSurviveARelaunch() throws {
        #expect(try Preferences(url: file).isPersistent)
        #expect(!Preferences(inMemory: "scratch").isPersistent)
    }

    @Test func valuesExpireWithTheInjectedClock() throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_000_000))
        let prefs = try Preferences(url: file, clock: clock)
        let token = Preferences.Key<String?>("token", default: nil, expiry: .after(60))
        prefs[token] = "secret"
        try prefs.set(5, forKey: "cached", expiry: .after(10))
        try prefs.set(1, forKey: "forever")
        clock.advance(by: 9)
        #expect(prefs.integer(forKey: "cached") == 5)
        clock.advance(by: 1)
        #expect(prefs.object(forKey: "cached") == nil)
        #expect(prefs[token] == "secret")
        #expect(prefs.keys == ["forever", "token"])
        prefs.close()

        let reopened = try Preferences(url: file, clock: clock)
        #expect(reopened[token] == "secret")
        clock.advance(by: 50)
        #expect(reopened[token] == nil)
        #expect(reopened.keys == ["forever"])
        try reopened.compact()
        #expect(reopened.storage.keyCount == 1)
    }

    @Test func anInMemoryStoreWritesNothing() throws {
        let prefs = Preferences(inMemory: "preview")
        try prefs.set(3, forKey: "x")
        #expect(prefs.integer(forKey: "x") == 3)
        #expect(prefs.url == nil)
    }

    @Test func suitesLiveInTheSandboxAndInGroupContainers() throws {
        let sandbox = folder.sandbox(app: "com.example.app")
        let app = try Preferences(sandbox: sandbox)
        try app.set(1, forKey: "a")
        #expect(app.url == sandbox.preferences.appendingPathComponent("com.example.app.stashprefs"))
        let shared = try Preferences(suite: "shared", group: "group.com.example", sandbox: sandbox)
        try shared.set(2, forKey: "b")
        #expect(shared.url?.path.contains("Shared/group.com.example/Library/Preferences/shared.stashprefs") == true)
        #expect(throws: StashError.self) { try Preferences(suite: "../escape", sandbox: sandbox) }
    }

    @Test func writesAfterCloseThrowClosed() throws {
        let prefs = try Preferences(url: file)
        prefs.close()
        #expect(throws: StashError.self) { try prefs.set(1, forKey: "a") }
        let key = Preferences.Key("a", default: 4)
        prefs[key] = 5
        #expect(prefs.lastError?.code == .closed)
        #expect(prefs[key] == 4)
    }
}

/// A clock that counts how often it is read.
private final class CountingClock: StashClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var count = 0

    init(now: Date) { current = now }

    var now: Date {
        get { lock.withLock { count += 1; return current } }
        set { lock.withLock { current = newValue } }
    }

    var reads: Int { lock.withLock { count } }
}
