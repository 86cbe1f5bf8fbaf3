import Foundation
import HTTPTypes
import StashCore
import StashTestSupport
@testable import StashHTTP
import Testing

/// A collapsed miss whose first reader drops the body part way lets the identical requests
/// waiting behind it go (they used to wait for a body nobody would read, forever).
struct CollapseDroppedBodyTests {
    @Test func aDroppedLeaderBodyReleasesTheWaitingFollower() async throws {
        let cache = try HTTPCache(diskCapacity: 0, collapsesRequests: true)
        let request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/large")
        let trips = LockedValue(0)
        let send: HTTPStreamingSend = { _, _ in
            let trip = trips.withLock { $0 += 1; return $0 }
            let response = HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600"])
            guard trip == 1 else { return (response, HTTPBodyStream(Data("whole".utf8))) }
            // The first trip's body, framed (so it could be stored): one part, then more
            // that never comes.
            var framed = response
            framed.headerFields[.contentLength] = "1000000"
            let parts = LockedValue(0)
            return (framed, HTTPBodyStream(next: {
                if parts.withLock({ $0 += 1; return $0 }) == 1 { return Data("first part".utf8) }
                try await Task.sleep(for: .seconds(3_600))
                return nil
            }))
        }

        /// Reads one part of the first answer, starts an identical request, waits until it
        /// is waiting behind the first, then drops the first answer's body.
        func followerBehindADroppedLeader() async throws -> Task<Data, any Error> {
            let leader = try await cache.streamResponse(to: request, send: send)
            var parts = leader.body.makeAsyncIterator()
            #expect(try await parts.next() == Data("first part".utf8))
            let follower = Task { try await cache.streamResponse(to: request, send: send).body.collect() }
            let waiting = await eventually { cache.inFlight.withLock { $0.values.first?.waiting } == 1 }
            #expect(waiting, "the second request never waited behind the first")
            return follower
        }
        let follower = try await followerBehindADroppedLeader()

        let done = LockedValue<Data?>(nil)
        let reader = Task { let body = try await follower.value; done.withLock { $0 = body } }
        let finished = await eventually { done.withLock { $0 } != nil }
        #expect(finished, "the waiting request never finished after the first body was dropped")
        if finished { try await reader.value }
        #expect(done.withLock { $0 } == Data("whole".utf8))
        #expect(trips.withLock { $0 } == 2)
        #expect(cache.inFlight.withLock { $0.isEmpty })
    }
}
