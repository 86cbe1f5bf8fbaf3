import Foundation
import HTTPTypes
import PostgresNIO
import StashCore
import StashHTTP
import StashHTTPTestSupport
import StashPostgres
import StashPostgresHTTP
import Testing

/// A signed-in client's revalidation (a `304`, or a `HEAD`) of a response stored for
/// everyone, in an `HTTPCache` whose responses live in PostgreSQL: the user's fields and
/// the `private, max-age=86400` meant for that user alone never reach the row the fleet
/// reads, and the origin's 5 seconds still hold.
@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason))
struct SharedCacheAuthorizedUpdateTests {
    @Test(arguments: [HTTPRequest.Method.get, .head])
    func aSignedInRevalidationLeavesTheSharedRowAlone(method: HTTPRequest.Method) async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin = try await AccountOrigin.start(clock: clock)
        defer { origin.stop() }
        try await TestPostgres.withSchema { _, _, client in
            let storage = SharedCache(client: client, configuration: TestPostgres.configuration)
            try await storage.migrate()
            let cache = HTTPCache(sharedStorage: storage, clock: clock)
            let transport = URLSessionTransport(timeout: 20)
            @Sendable func send(_ method: HTTPRequest.Method, _ fields: [(String, String)]) async throws -> CachedHTTPResponse {
                var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/p")
                for (name, value) in fields { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
                return try await cache.respond(to: request) { request, body in try await transport.send(request, body: body) }
            }
            let account = HTTPField.Name("X-Account")!
            _ = try await send(.get, [])
            let mine = try await send(method, [("Authorization", "Bearer alice"), ("Cache-Control", "no-cache")])
            #expect(mine.response.headerFields[account] == "alice")
            try await cache.flush()
            clock.advance(by: 2)
            let next = try await send(.get, [])
            #expect(next.outcome == .cache)
            #expect(next.response.headerFields[account] == nil, "the signed-in client's field reached the shared row")
            #expect(next.response.headerFields[.cacheControl] == "max-age=5")
            clock.advance(by: 4)
            let later = try await send(.get, [])
            #expect(later.outcome != .cache, "the shared row was kept fresh past the origin's 5 seconds")
            #expect(origin.requests.count == 3)
        }
    }
}
