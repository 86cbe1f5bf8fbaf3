import Foundation
import Stash

extension Preferences.Key where Value == Int {
    fileprivate static let launchCount = Preferences.Key("launchCount", default: 0)
}

extension Tour {
    @Sendable static func preferences(_ tour: Tour) async throws {
        let prefs = try Preferences(sandbox: tour.sandbox)
        tour.say("Preferences(sandbox:) opens the app's suite: \(prefs.url?.lastPathComponent ?? "")")
        prefs[.launchCount] += 1
        try prefs.set("dark", forKey: "theme")
        try prefs.set(["swift", "linux"], forKey: "tags")
        tour.say("typed key: prefs[.launchCount] = \(prefs[.launchCount]); theme = \(prefs.string(forKey: "theme") ?? "")")

        prefs.register(defaults: ["fontSize": .integer(13)])
        tour.say("registered default (memory only): fontSize = \(prefs.integer(forKey: "fontSize"))")

        let clock = ManualClock()
        let session = try Preferences(suite: "session", sandbox: tour.sandbox, clock: clock)
        try session.set("abc123", forKey: "token", expiry: .after(60))
        clock.advance(by: 61)
        tour.say("a token set to expire after 60 s, 61 s later: \(session.string(forKey: "token") ?? "gone")")

        for round in 0..<50 { try prefs.set(round, forKey: "counter") }
        let before = prefs.storage
        try prefs.compact()
        let after = prefs.storage
        tour.say("after 50 overwrites the log held \(before.usedBytes) bytes; compaction left \(after.usedBytes) for \(after.keyCount) keys")
        tour.say("each set appends one checksummed record to a memory-mapped log; flush() or .durable for power cuts")
        tour.showFiles(under: tour.sandbox.preferences)
        tour.say("try: stash defaults read --root <dir> \(prefs.suite)")
    }
}
