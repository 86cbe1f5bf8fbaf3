import AsyncHTTPClient
import Foundation
import HTTPTypes
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashHTTPServer
import StashToolSupport
import Testing
import NIOCore

/// Concurrent identical requests: with collapsing on, one trip to the origin serves all.
struct CollapseTests {
    static let concurrency = 8

    @Test(arguments: [true, false]) func clientCollapses(collapsing: Bool) async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin = try await TestOrigin.start(clock: clock)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let cache = try HTTPCache(diskCapacity: 0, collapsesRequests: collapsing, clock: clock)
        let client = CachingHTTPClient(cache: cache, transport: transport)
        origin.set("/slow", TestOrigin.Reply(fields: [("Cache-Control", "max-age=600")], body: "once", delay: 300))
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/slow")
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask { String(decoding: try await client.send(request).body, as: UTF8.self) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: "once", count: Self.concurrency))
        if collapsing {
            #expect(origin.requests("/slow").count == 1)
        } else {
            #expect(origin.requests("/slow").count > 1)
        }
        origin.stop()
        try await transport.shutdown()
    }

    @Test func proxyCollapses() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin = try await TestOrigin.start(clock: clock)
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        let proxy = HTTPCachingProxy(upstream: URL(string: origin.base)!, cache: cache)
        let running = try await ListeningServer.start("proxy") { listening in try await proxy.run(port: 0) { listening($0) } }
        let (port, server) = (running.port, running.task)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        origin.set("/slow", TestOrigin.Reply(fields: [("Cache-Control", "max-age=600")], body: "once", delay: 300))
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/slow")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask {
                    let (response, body) = try await transport.send(request, body: Data())
                    #expect(response.status == .ok)
                    #expect(String(decoding: body, as: UTF8.self) == "once")
                }
            }
            try await group.waitForAll()
        }
        #expect(origin.requests("/slow").count == 1)
        server.cancel()
        try await proxy.shutdown()
        try await transport.shutdown()
        origin.stop()
    }
}
