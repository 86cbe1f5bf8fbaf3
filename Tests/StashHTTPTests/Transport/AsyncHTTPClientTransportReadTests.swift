import Foundation
import HTTPTypes
import NIOCore
import StashHTTP
import StashHTTPAsyncClient
import StashTestSupport
import Testing

/// How ``AsyncHTTPClientTransport`` reads a large body: in parts that grow past NIO's default
/// 64 KiB reads (up to 1 MiB), so a body passing through costs fewer hops from the event loop
/// to the task reading it, and every byte still arrives in order.
@Suite(.timeLimit(.minutes(2)))
struct AsyncHTTPClientTransportReadTests {
    @Test func aLargeBodyArrivesInPartsLargerThanNIOsDefaultReads() async throws {
        let seed = SeededGenerator.freshSeed(for: "aLargeBodyArrivesInPartsLargerThanNIOsDefaultReads")
        let origin = try await PatternOrigin.start(seed: seed)
        defer { origin.stop() }
        let size = 32 << 20
        origin.set("/big", .init(size: size, announcesLength: true))
        let transport = AsyncHTTPClientTransport(timeout: .seconds(60))
        let (largest, checker): (Int, PatternOrigin.Checker)
        do {
            let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/big")
            let (response, body) = try await transport.stream(request, body: Data())
            #expect(response.status == .ok)
            var reading = (largest: 0, checker: PatternOrigin.Checker(seed: seed, offset: 0))
            for try await part in body {
                reading.largest = max(reading.largest, part.count)
                reading.checker.check(part)
            }
            (largest, checker) = reading
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        #expect(checker.count == size)
        #expect(checker.mismatchAt == nil)
        // NIO's default allocator never reads more than 64 KiB at once.
        #expect(largest > 64 << 10, "the largest part was \(largest) bytes")
        #expect(largest <= 1 << 20)
    }
}
