import Foundation
import HTTPTypes
import NIOCore
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashHTTPServer
import StashHTTPTestSupport
import StashTestSupport
import Testing

/// An anonymous client's response is stored; a signed-in client then revalidates it (a
/// conditional `GET` answered `304`, or a `HEAD`) and the origin answers for that user:
/// `private, max-age=86400` and `X-Account: alice`. In a shared cache none of that may
/// reach the next anonymous client, nor stretch the origin's 5-second policy to a day
/// (RFC 9111 §3.5, §4.3.4, §4.3.5): the next anonymous request is a hit on the stored public
/// response (or a miss), never one carrying the user's fields.
struct AuthorizedUpdateTests {
    /// How the signed-in client revalidates.
    enum Revalidation: String, CaseIterable, Sendable {
        /// A `GET` with `Cache-Control: no-cache`, sent conditional, answered `304`.
        case notModified
        /// A `HEAD` with `Cache-Control: no-cache`, answered `200` with the same validators.
        case head
    }

    typealias Send = @Sendable (_ method: HTTPRequest.Method, _ fields: [(String, String)]) async throws -> (HTTPResponse, String)

    /// The steps, through `send`; `clock` is the cache's and the origin's.
    static func checkNothingLeaks(_ revalidation: Revalidation, clock: ManualClock, origin: AccountOrigin, send: Send) async throws {
        let (first, firstBody) = try await send(.get, [])
        #expect(first.status == .ok && firstBody == "shared")
        let signedIn = [("Authorization", "Bearer alice"), ("Cache-Control", "no-cache")]
        let (mine, _) = try await send(revalidation == .head ? .head : .get, signedIn)
        #expect(mine.status == .ok)
        #expect(mine.headerFields[HTTPField.Name("X-Account")!] == "alice", "the signed-in client gets its own answer")
        #expect(origin.requests.count == 2)
        if revalidation == .notModified {
            #expect(origin.requests.last?.headerFields[.ifNoneMatch] == "\"v1\"", "the revalidation went out conditional")
        }

        clock.advance(by: 2)
        let (next, nextBody) = try await send(.get, [])
        #expect(next.status == .ok && nextBody == "shared")
        #expect(next.headerFields[HTTPField.Name("X-Account")!] == nil, "the signed-in client's field reached another client")
        #expect(next.headerFields[.cacheControl] == "max-age=5", "the stored policy changed: \(next.headerFields[.cacheControl] ?? "none")")
        #expect(origin.requests.count == 2, "a hit on the public response")

        // The origin's 5 seconds still hold: past them the next request goes to the origin.
        clock.advance(by: 4)
        let (later, _) = try await send(.get, [])
        #expect(later.headerFields[HTTPField.Name("X-Account")!] == nil)
        #expect(origin.requests.count == 3, "the stored response was kept fresh past its 5 seconds")
    }

    @Test(arguments: Revalidation.allCases, [false, true])
    func throughTheCache(_ revalidation: Revalidation, onDisk: Bool) async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin = try await AccountOrigin.start(clock: clock)
        defer { origin.stop() }
        let folder = TemporaryFolder("authorized-update")
        let cache = try HTTPCache(diskCapacity: onDisk ? 1 << 20 : 0, directory: onDisk ? folder.url : nil, mode: .shared, clock: clock)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        do {
            try await Self.checkNothingLeaks(revalidation, clock: clock, origin: origin) { method, fields in
                var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/p")
                for (name, value) in fields { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
                let answer = try await cache.respond(to: request) { request, body in try await transport.send(request, body: body) }
                return (answer.response, String(decoding: answer.body, as: UTF8.self))
            }
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    @Test(arguments: Revalidation.allCases)
    func throughTheProxy(_ revalidation: Revalidation) async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin = try await AccountOrigin.start(clock: clock)
        defer { origin.stop() }
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        try await ProxyTests.Running.with(upstream: origin.base, cache: cache) { running in
            try await Self.checkNothingLeaks(revalidation, clock: clock, origin: origin) { method, fields in
                try await running.send(method, "/p", fields)
            }
        }
    }

    /// In a private cache the one user's answers are theirs to keep: the same exchange
    /// freshens the stored response (the contrast that shows the rule is the mode's).
    @Test func aPrivateCacheTakesTheUpdate() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin = try await AccountOrigin.start(clock: clock)
        defer { origin.stop() }
        let cache = try HTTPCache(diskCapacity: 0, mode: .private, clock: clock)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        @Sendable func send(_ fields: [(String, String)]) async throws -> CachedHTTPResponse {
            var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/p")
            for (name, value) in fields { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            return try await cache.respond(to: request) { request, body in try await transport.send(request, body: body) }
        }
        do {
            _ = try await send([])
            _ = try await send([("Authorization", "Bearer alice"), ("Cache-Control", "no-cache")])
            clock.advance(by: 60)
            let later = try await send([])
            #expect(later.outcome == .cache)
            #expect(later.response.headerFields[HTTPField.Name("X-Account")!] == "alice")
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }
}
