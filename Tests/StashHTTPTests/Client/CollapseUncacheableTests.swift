import Foundation
import HTTPTypes
import StashCore
@testable import StashHTTP
import Testing

/// Identical misses wait only until it is known whether the first one's response is stored:
/// a response that may not be stored releases them as soon as its head arrives, not when
/// its (possibly endless) body is over.
struct CollapseUncacheableTests {
    @Test func anUncacheableLeaderReleasesTheFollowersAtOnce() async throws {
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, collapsesRequests: true)
        let request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/private")
        let trips = LockedValue(0)
        let send: HTTPStreamingSend = { _, _ in
            let trip = trips.withLock { $0 += 1; return $0 }
            let response = HTTPResponse(status: .ok, headerFields: [.cacheControl: "private, max-age=600"])
            guard trip == 1 else { return (response, HTTPBodyStream(Data("whole".utf8))) }
            // The first trip's body: one part, then more that arrives only after an hour.
            let parts = LockedValue(0)
            return (response, HTTPBodyStream(next: {
                if parts.withLock({ $0 += 1; return $0 }) == 1 { return Data("first part".utf8) }
                try await Task.sleep(for: .seconds(3_600))
                return nil
            }))
        }
        let leader = try await cache.streamResponse(to: request, send: send)
        // Not storable in shared mode: the store is decided with the head.
        #expect(cache.inFlight.withLock { $0.isEmpty }, "the followers still wait for the leader's body")
        var parts = leader.body.makeAsyncIterator()
        #expect(try await parts.next() == Data("first part".utf8))
        let follower = try await cache.streamResponse(to: request, send: send)
        #expect(follower.outcome == .network)
        #expect(try await follower.body.collect() == Data("whole".utf8))
        #expect(trips.withLock { $0 } == 2)
    }

    /// A storable leader keeps its followers until its body is stored, and they then hit.
    @Test func aStorableLeaderReleasesTheFollowersOnceStored() async throws {
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, collapsesRequests: true)
        let request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/public")
        let send: HTTPStreamingSend = { _, _ in
            let parts = LockedValue(["one ", "two"].map { Data($0.utf8) })
            return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600", .contentLength: "7"]), HTTPBodyStream(next: {
                parts.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            }))
        }
        let leader = try await cache.streamResponse(to: request, send: send)
        #expect(cache.inFlight.withLock { $0.count } == 1)
        #expect(try await leader.body.collect() == Data("one two".utf8))
        #expect(cache.inFlight.withLock { $0.isEmpty })
        let follower = try await cache.streamResponse(to: request, send: send)
        #expect(follower.outcome == .cache)
    }
}
