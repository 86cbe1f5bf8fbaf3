import Foundation
import HTTPTypes
import NIOCore
import StashCache
import StashCore
@testable import StashHTTP
import StashHTTPAsyncClient
import StashTestSupport
import Testing

/// Stale-while-revalidate revalidations, which run in tasks of their own: one per variant at a
/// time, a `304` that no one reads opens nothing, and `close()` cancels those running. A
/// real origin on 127.0.0.1 counts the requests; the transport in front of it holds the
/// revalidations until the test lets them go, so they are running when the test looks.
struct HTTPCacheBackgroundRevalidationTests {
    struct Fixture {
        let folder = TemporaryFolder("http-background-revalidation")
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin: TestOrigin
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let cache: HTTPCache
        /// While set, requests wait at `held` before they leave for the origin.
        let holds = LockedValue(false)
        let held = CollapseGate()
        /// Requests that were cancelled while held.
        let cancelled = LockedValue(0)

        init(directory: Bool = false) async throws {
            origin = try await TestOrigin.start(clock: clock)
            cache = try HTTPCache(memoryCapacity: 4 << 20, diskCapacity: 64 << 20, directory: directory ? folder.url : nil, clock: clock)
        }

        func request(_ path: String, fields: HTTPFields = [:]) -> HTTPRequest {
            HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: path, headerFields: fields)
        }

        /// Asks for `path` (with `fields`) and reads the answer whole.
        func get(_ path: String, fields: HTTPFields = [:]) async throws -> (HTTPCacheOutcome, Data) {
            let answer = try await cache.streamResponse(to: request(path, fields: fields)) { [holds, held, cancelled, transport] request, body in
                if holds.withLock({ $0 }) {
                    // Waits until let go; returns at once when the task is cancelled.
                    await held.wait(atMost: .seconds(3_600))
                    if Task.isCancelled {
                        cancelled.withLock { $0 += 1 }
                        throw CancellationError()
                    }
                }
                return try await transport.stream(request, body: body)
            }
            return (answer.outcome, try await answer.body.collect())
        }

        /// A fixture whose `/feed` is stored and stale now, within its
        /// `stale-while-revalidate` window, and whose next requests to the origin are held.
        static func staleFeed() async throws -> Fixture {
            let fixture = try await Fixture()
            fixture.origin.set("/feed", TestOrigin.Reply(fields: [("Cache-Control", "max-age=1, stale-while-revalidate=600")], body: "feed"))
            _ = try await fixture.get("/feed")
            fixture.holds.withLock { $0 = true }
            fixture.clock.advance(by: 10)
            return fixture
        }

        func finish() async throws {
            try cache.close()
            origin.stop()
            try await transport.shutdown()
        }
    }

    /// Concurrent stale hits of one URL within its `stale-while-revalidate` window are all
    /// answered from the cache, and reach the origin once between them; once that
    /// revalidation is over, the next stale hit revalidates again.
    @Test func concurrentStaleHitsReachTheOriginOnce() async throws {
        let fixture = try await Fixture.staleFeed()

        let outcomes = try await withThrowingTaskGroup(of: HTTPCacheOutcome.self) { group in
            for _ in 0..<8 { group.addTask { try await fixture.get("/feed").0 } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: .cache, count: 8))
        #expect(fixture.cache.backgroundRevalidations.isRunning)
        fixture.held.open()
        try await fixture.cache.flush()
        #expect(fixture.origin.requests("/feed").count == 2, "stale hits revalidated more than once")

        fixture.clock.advance(by: 10)
        #expect(try await fixture.get("/feed").0 == .cache)
        try await fixture.cache.flush()
        #expect(fixture.origin.requests("/feed").count == 3, "a finished revalidation kept the next one out")
        try await fixture.finish()
    }

    /// Two stale variants of one URL (`Vary: Accept-Language`) each revalidate: the one
    /// running for the first does not keep the second's out, which would stay stale.
    @Test func staleVariantsOfOneURLEachRevalidate() async throws {
        let fixture = try await Fixture()
        let fields = [("Cache-Control", "max-age=1, stale-while-revalidate=600"), ("Vary", "Accept-Language")]
        fixture.origin.set("/page", TestOrigin.Reply(fields: fields, body: "page"))
        let english: HTTPFields = [.acceptLanguage: "en"]
        let french: HTTPFields = [.acceptLanguage: "fr"]
        #expect(try await fixture.get("/page", fields: english).0 == .network)
        #expect(try await fixture.get("/page", fields: french).0 == .network)
        fixture.holds.withLock { $0 = true }
        fixture.clock.advance(by: 10)

        #expect(try await fixture.get("/page", fields: english).0 == .cache)
        #expect(try await fixture.get("/page", fields: french).0 == .cache)
        #expect(try await fixture.get("/page", fields: french).0 == .cache)
        fixture.held.open()
        try await fixture.cache.flush()
        #expect(fixture.origin.requests("/page").count == 4, "one stale variant's revalidation kept the other's out")
        try await fixture.finish()
    }

    /// A background revalidation answered `304` freshens the stored response without
    /// opening its body file and counts a revalidation but no bytes saved (no one reads
    /// that answer): the disk cache sees one read of the file, the hit's.
    @Test func aNotModifiedInTheBackgroundOpensNoBodyFile() async throws {
        let fixture = try await Fixture(directory: true)
        let content = String(repeating: "0123456789abcdef", count: (2 << 20) / 16)
        let fields = [("Cache-Control", "max-age=1, stale-while-revalidate=600"), ("ETag", "\"v1\"")]
        fixture.origin.set("/film", TestOrigin.Reply(fields: fields, body: content))
        _ = try await fixture.get("/film")
        fixture.origin.set("/film", TestOrigin.Reply(status: 304, fields: fields, body: ""))
        fixture.clock.advance(by: 10)
        let disk = try #require(fixture.cache.hybrid?.disk)
        let diskHits = try disk.statistics().hits

        let (outcome, body) = try await fixture.get("/film")
        #expect(outcome == .cache)
        #expect(body == Data(content.utf8))
        try await fixture.cache.flush()
        #expect(fixture.origin.requests("/film").count == 2)
        #expect(try disk.statistics().hits == diskHits + 1, "the background 304 opened the body file")
        let statistics = fixture.cache.statistics
        #expect(statistics.revalidations == 1)
        #expect(statistics.bytesSaved == content.utf8.count)
        #expect(statistics.hits == 1 && statistics.misses == 1)
        let (fresh, _) = try await fixture.get("/film")
        #expect(fresh == .cache, "the 304 did not freshen the stored response")
        #expect(fixture.origin.requests("/film").count == 2)
        try await fixture.finish()
    }

    /// `close()` cancels a revalidation that is running: it never reaches the origin, even
    /// once its transport would let it go; and a stale hit after `close()` starts none.
    @Test func closeCancelsTheRunningRevalidations() async throws {
        let fixture = try await Fixture.staleFeed()
        #expect(try await fixture.get("/feed").0 == .cache)
        #expect(fixture.cache.backgroundRevalidations.isRunning)

        try fixture.cache.close()
        fixture.held.open()
        await fixture.cache.backgroundRevalidations.wait()
        #expect(fixture.cancelled.withLock { $0 } == 1, "the revalidation was not cancelled")
        #expect(fixture.origin.requests("/feed").count == 1, "a revalidation reached the origin after close()")

        fixture.holds.withLock { $0 = false }
        _ = try await fixture.get("/feed")
        try await fixture.cache.flush()
        #expect(!fixture.cache.backgroundRevalidations.isRunning)
        #expect(fixture.origin.requests("/feed").count == 1, "a stale hit after close() revalidated")
        try await fixture.finish()
    }
}
