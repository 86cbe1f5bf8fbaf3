import Foundation
import Stash

extension Tour {
    @Sendable static func memoryCaches(_ tour: Tour) async throws {
        tour.say("A MemoryCache (NSCache's role) keeps the most recently used entries within a count and a cost:")
        let evicted = LockedValue<[String]>([])
        let clock = ManualClock()
        let thumbnails = MemoryCache<String, Data>(
            configuration: .init(
                countLimit: 3, costLimit: 10_000,
                cost: { _, data in data.count },
                onEvict: { key, _, reason in evicted.withLock { $0.append("\(key) (\(reason))") } },
                clock: clock
            )
        )
        for name in ["a.png", "b.png", "c.png"] { thumbnails.set(Data(count: 1_000), forKey: name) }
        _ = thumbnails.value(forKey: "a.png")                  // a.png is used again
        thumbnails.set(Data(count: 1_000), forKey: "d.png")    // over the count: one must go
        thumbnails.set(Data(count: 9_000), forKey: "banner.png", expiry: .after(60))   // over the cost
        tour.say("  kept: \(["a.png", "b.png", "c.png", "d.png", "banner.png"].filter { thumbnails.value(forKey: $0) != nil }.joined(separator: ", "))")
        tour.say("  evicted, least recently used first: \(evicted.withLock { $0 }.joined(separator: ", "))")
        clock.advance(by: 61)
        tour.say("  61 s later banner.png (expiry .after(60)) is gone: \(thumbnails.value(forKey: "banner.png") == nil)")

        tour.say("")
        tour.say("An ExpiringPool keeps a fixed number of entries, each with its own expiry (Kache's pool):")
        let sessions = ExpiringPool<String, String>(countLimit: 2, defaultExpiry: .after(300), clock: clock)
        sessions.set("token-1", forKey: "ada")
        sessions.set("token-2", forKey: "grace", expiry: .after(30))
        if let dropped = sessions.set("token-3", forKey: "linus") {
            tour.say("  full at 2: adding linus pushed out \(dropped.key), the entry closest to expiring")
        }
        clock.advance(by: 301)
        tour.say("  301 s later: \(sessions.count) left (every entry expired)")
        let poolFile = try tour.sandbox.url(for: .caches).appendingPathComponent("sessions.json")
        sessions.set("token-4", forKey: "ada")
        try sessions.save(to: poolFile)
        let restored = try ExpiringPool<String, String>(contentsOf: poolFile, countLimit: 2, defaultExpiry: .after(300), clock: clock)
        tour.say("  saved to and restored from Library/Caches/sessions.json: ada -> \(restored.value(forKey: "ada") ?? "nil")")

        tour.say("")
        tour.say("A BoundedQueue is a FIFO of fixed capacity whose elements may age out:")
        let recent = BoundedQueue<String>(countLimit: 3, ageLimit: 3600, clock: clock)
        var pushedOut: [String] = []
        for search in ["tea", "coffee", "cocoa", "mate"] {
            if let old = recent.append(search) { pushedOut.append(old) }
        }
        tour.say("  after 4 appends to a queue of 3: \(recent.elements.joined(separator: ", ")); pushed out: \(pushedOut.joined(separator: ", "))")
        tour.say("  popFirst: \(recent.popFirst() ?? "nil"); then \(recent.count) left")
    }
}
