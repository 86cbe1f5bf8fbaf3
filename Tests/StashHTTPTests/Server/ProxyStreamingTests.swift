import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashHTTPServer
import StashTestSupport
import StashToolSupport
import Testing

/// Bodies of any size through the proxy: passed on as they arrive, never capped, stored only
/// when complete, and memory that does not grow with the body.
@Suite(.timeLimit(.minutes(5)))
struct ProxyStreamingTests {
    /// Runs `body` with the one client of a test and shuts it down once `body` returns or
    /// throws.
    static func withTransport<T>(_ body: (AsyncHTTPClientTransport) async throws -> T) async throws -> T {
        let transport = AsyncHTTPClientTransport(timeout: .seconds(600))
        let result: T
        do {
            result = try await body(transport)
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        return result
    }

    /// Reads `path` through the proxy on `port` with `transport`, checking every byte against
    /// the pattern for `seed`; `firstPart` runs when the first bytes of the body have arrived.
    static func fetch(
        _ path: String, port: Int, seed: UInt64, via transport: AsyncHTTPClientTransport, range: ClosedRange<Int>? = nil,
        method: HTTPRequest.Method = .get, progress: @Sendable (Int) -> Void = { _ in }, firstPart: @Sendable () -> Void = {}
    ) async throws -> (HTTPResponse, PatternOrigin.Checker) {
        var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
        if let range { request.headerFields[.range] = "bytes=\(range.lowerBound)-\(range.upperBound)" }
        let (response, body) = try await transport.stream(request, body: Data())
        let start = range?.lowerBound ?? 0
        var checker = PatternOrigin.Checker(seed: seed, offset: start)
        for try await part in body {
            if checker.count == start { firstPart() }
            checker.check(part)
            progress(checker.count - start)
        }
        return (response, checker)
    }

    /// 80 MB, beyond the 64 MiB the proxy once collected bodies up to, with a length or
    /// chunked, arrives whole and byte for byte.
    @Test(arguments: [true, false])
    func bodyLargerThanTheOldCapPasses(announcesLength: Bool) async throws {
        let seed = SeededGenerator.freshSeed(for: "bodyLargerThanTheOldCapPasses")
        let origin = try await PatternOrigin.start(seed: seed)
        defer { origin.stop() }
        try await Self.withTransport { transport in
            let size = 80_000_000
            origin.set("/big", .init(size: size, announcesLength: announcesLength))
            try await ProxyTests.Running.with(upstream: origin.base) { running in
                let (response, checker) = try await Self.fetch("/big", port: running.port, seed: seed, via: transport)
                #expect(response.status == .ok)
                #expect(response.headerFields[HTTPField.Name("Cache-Status")!] == "stash; fwd=miss")
                #expect(response.headerFields[.contentLength] == (announcesLength ? String(size) : nil))
                #expect(checker.count == size)
                #expect(checker.mismatchAt == nil)
            }
        }
    }

    /// 80 MB through a proxy whose cache has a directory: written to a file of the disk cache
    /// as it arrives (the memory side never holds it), then a hit streamed from that file,
    /// ranges and `HEAD` included, also after the cache is closed and opened again.
    @Test func largeBodyIsStoredInAFileAndServedFromIt() async throws {
        let seed = SeededGenerator.freshSeed(for: "largeBodyIsStoredInAFileAndServedFromIt")
        let origin = try await PatternOrigin.start(seed: seed)
        defer { origin.stop() }
        try await Self.withTransport { transport in
            let size = 80_000_000
            origin.set("/big", .init(size: size))
            let folder = TemporaryFolder("proxy-large")
            let cache = try HTTPCache(memoryCapacity: 4 << 20, diskCapacity: 1 << 30, directory: folder.url, mode: .shared)
            let firstPort = LockedValue(0)
            try await ProxyTests.Running.with(upstream: origin.base, cache: cache) { running in
                firstPort.withLock { $0 = running.port }
                let (miss, fetched) = try await Self.fetch("/big", port: running.port, seed: seed, via: transport)
                #expect(miss.headerFields[HTTPField.Name("Cache-Status")!] == "stash; fwd=miss")
                #expect(fetched.count == size && fetched.mismatchAt == nil)
                #expect(cache.currentMemoryUsage < 1 << 20, "the memory side holds \(cache.currentMemoryUsage) bytes")
                // The proxy stores the body once its last byte is passed on: the client may
                // have it all a moment before the entry is committed.
                #expect(await eventually { cache.currentDiskUsage >= size })
                let (hit, served) = try await Self.fetch("/big", port: running.port, seed: seed, via: transport)
                #expect(hit.headerFields[HTTPField.Name("Cache-Status")!] == "stash; hit")
                #expect(hit.headerFields[.contentLength] == String(size))
                #expect(served.count == size && served.mismatchAt == nil)
                let range = 70_000_001...70_300_000
                let (part, cut) = try await Self.fetch("/big", port: running.port, seed: seed, via: transport, range: range)
                #expect(part.status == .partialContent)
                #expect(part.headerFields[.contentRange] == "bytes 70000001-70300000/\(size)")
                #expect(cut.count == range.upperBound + 1 && cut.mismatchAt == nil)
                let (head, nothing) = try await Self.fetch("/big", port: running.port, seed: seed, via: transport, method: .head)
                #expect(head.headerFields[.contentLength] == String(size))
                #expect(nothing.count == 0)
                #expect(origin.requests("/big") == 1)
            }
            try cache.close()
            // The entry is keyed by the upstream's authority, whatever `Host` the client sent:
            // asked directly, the reopened cache streams it from the file without the origin.
            let reopened = try HTTPCache(memoryCapacity: 4 << 20, diskCapacity: 1 << 30, directory: folder.url, mode: .shared)
            #expect(firstPort.withLock { $0 } != origin.port)
            let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/big")
            let answer = try await reopened.streamResponse(to: request) { _, _ in throw StashError(.io, "the origin was asked") }
            #expect(answer.outcome == .cache)
            var served = PatternOrigin.Checker(seed: seed)
            for try await part in answer.body { served.check(part) }
            #expect(served.count == size && served.mismatchAt == nil)
            #expect(reopened.currentMemoryUsage < 1 << 20)
            try reopened.close()
        }
    }

    /// A `stash http-proxy` killed while a large body is being written to its cache leaves a
    /// cache that opens, holds no entry for it and no part of its file.
    @Test func killedWhileStoringLeavesNoEntry() async throws {
        let seed = SeededGenerator.freshSeed(for: "killedWhileStoringLeavesNoEntry")
        let origin = try await PatternOrigin.start(seed: seed)
        defer { origin.stop() }
        try await Self.withTransport { transport in
            origin.set("/big", .init(size: 50_000_000, pauseAfter: 8 << 20))
            let folder = TemporaryFolder("proxy-killed")
            let child = try ChildProcess(BuiltProducts.executable("stash"), [
                "http-proxy", "--listen", "127.0.0.1:0", "--upstream", origin.base, "--root", folder.url.path,
                "--disk-capacity", String(2 << 30), // one body may take an eighth of it
            ], environment: ["MALLOC_ARENA_MAX": "2"])
            let port = try Self.port(from: child)
            let cacheFolder = try #require(child.readLine()?.split(separator: ":", maxSplits: 1).last.map {
                URL(fileURLWithPath: $0.trimmingCharacters(in: .whitespaces), isDirectory: true)
            })
            let received = LockedValue(0)
            let client = Task { _ = try? await Self.fetch("/big", port: port, seed: seed, via: transport, progress: { count in received.withLock { $0 = count } }) }
            // Several MiB reached the client, so the proxy is writing the body to a file.
            var waited = 0
            while received.withLock({ $0 }) < 4 << 20, waited < 3000 {
                try await Task.sleep(for: .milliseconds(10))
                waited += 1
            }
            #expect(received.withLock { $0 } >= 4 << 20)
            let incoming = try FileManager.default.contentsOfDirectory(atPath: cacheFolder.appendingPathComponent("files").path)
            #expect(incoming.contains { $0.hasPrefix(".incoming.") }, "no incoming file in \(incoming)")
            child.kill()
            child.wait()
            origin.release()
            _ = await client.value

            let cache = try HTTPCache(diskCapacity: 256 << 20, directory: cacheFolder, mode: .shared)
            let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/big")
            #expect(cache.cachedResponse(for: request) == nil)
            #expect(cache.currentDiskUsage == 0)
            let left = try FileManager.default.contentsOfDirectory(atPath: cacheFolder.appendingPathComponent("files").path)
            #expect(left.isEmpty, "left behind: \(left)")
            try cache.close()
        }
    }

    /// The client has the first bytes while the origin is still holding back the rest; the
    /// response is stored once it is complete.
    @Test func firstBytesArriveBeforeTheOriginFinishes() async throws {
        let seed = SeededGenerator.freshSeed(for: "firstBytesArriveBeforeTheOriginFinishes")
        let origin = try await PatternOrigin.start(seed: seed)
        defer { origin.stop() }
        try await Self.withTransport { transport in
            let size = 1 << 20
            origin.set("/paused", .init(size: size, pauseAfter: 256 << 10))
            try await ProxyTests.Running.with(upstream: origin.base) { running in
                let heldBack = LockedValue<Bool?>(nil)
                let (response, checker) = try await Self.fetch("/paused", port: running.port, seed: seed, via: transport, firstPart: {
                    heldBack.withLock { $0 = !origin.isReleased }
                    origin.release()
                })
                #expect(response.status == .ok)
                #expect(heldBack.withLock { $0 } == true, "the first bytes came only after the origin had finished")
                #expect(checker.count == size && checker.mismatchAt == nil)
                let (again, hit) = try await Self.fetch("/paused", port: running.port, seed: seed, via: transport)
                #expect(again.headerFields[HTTPField.Name("Cache-Status")!] == "stash; hit")
                #expect(hit.count == size && hit.mismatchAt == nil)
                #expect(origin.requests("/paused") == 1)
            }
        }
    }

    /// An origin that closes part way: the client's connection closes early too (its read
    /// fails), nothing is stored, and the next request goes to the origin again.
    @Test(arguments: [true, false])
    func originClosingMidBodyClosesTheClient(announcesLength: Bool) async throws {
        let seed = SeededGenerator.freshSeed(for: "originClosingMidBodyClosesTheClient")
        let origin = try await PatternOrigin.start(seed: seed)
        defer { origin.stop() }
        try await Self.withTransport { transport in
            origin.set("/cut", .init(size: 4 << 20, announcesLength: announcesLength, cutAfter: 1 << 20))
            try await ProxyTests.Running.with(upstream: origin.base) { running in
                for attempt in 1...2 {
                    let received = LockedValue(false)
                    await #expect(throws: (any Error).self) {
                        _ = try await Self.fetch("/cut", port: running.port, seed: seed, via: transport, firstPart: { received.withLock { $0 = true } })
                    }
                    #expect(received.withLock { $0 }, "attempt \(attempt): the head and first bytes should have been sent")
                    #expect(origin.requests("/cut") == attempt)
                }
            }
        }
    }

    /// `proxy.respond(to:body:)`, which answers with the body whole, turns a body cut short
    /// into `502` naming the cause.
    @Test func wholeAnswerToABodyCutShortIsBadGateway() async throws {
        let seed = SeededGenerator.freshSeed(for: "wholeAnswerToABodyCutShortIsBadGateway")
        let origin = try await PatternOrigin.start(seed: seed)
        defer { origin.stop() }
        origin.set("/cut", .init(size: 4 << 20, cutAfter: 1 << 20))
        try await ProxyTests.Running.with(upstream: origin.base) { running in
            let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(running.port)", path: "/cut")
            let (response, body) = await running.proxy.respond(to: request, body: Data())
            #expect(response.status == .badGateway)
            #expect(String(decoding: body, as: UTF8.self) == "bad gateway\n")
            #expect(response.headerFields[HTTPField.Name("Cache-Status")!]?.contains("closed early") == true)
        }
    }

    /// In a `stash http-proxy` process, 200 MB passing through (and stored), then served from
    /// the cache to four clients at once, raise the peak resident memory by far less than the
    /// body.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads VmHWM from /proc"))
    func memoryStaysBoundedWhateverTheBodySize() async throws {
        let seed = SeededGenerator.freshSeed(for: "memoryStaysBoundedWhateverTheBodySize")
        let origin = try await PatternOrigin.start(seed: seed)
        defer { origin.stop() }
        try await Self.withTransport { transport in
            let size = 200_000_000
            origin.set("/huge", .init(size: size))
            let folder = TemporaryFolder("proxy-memory")
            let child = try ChildProcess(BuiltProducts.executable("stash"), [
                "http-proxy", "--listen", "127.0.0.1:0", "--upstream", origin.base, "--root", folder.url.path,
                "--disk-capacity", String(2 << 30), // one body may take an eighth of it
            ])
            defer {
                child.kill()
                child.wait()
            }
            let port = try Self.port(from: child)
            // A small exchange first, so that what the first request sets up is in the baseline.
            origin.set("/small", .init(size: 100_000, cacheControl: "no-store"))
            _ = try await Self.fetch("/small", port: port, seed: seed, via: transport)
            let before = try Self.peakResidentBytes(of: child.processIdentifier)
            let (response, checker) = try await Self.fetch("/huge", port: port, seed: seed, via: transport)
            let after = try Self.peakResidentBytes(of: child.processIdentifier)
            #expect(response.status == .ok)
            #expect(checker.count == size && checker.mismatchAt == nil)
            // 24 MB: a body held whole would add all 200 MB, and one collected up to the 64 MiB
            // the proxy once held would add 64. The growth is 1-3 MB, on a loaded machine too
            // (`WritePacing` keeps the parts waiting for the client to a few hundred kilobytes).
            let bound = 24 << 20
            #expect(after - before < bound, "peak resident memory grew by \(after - before) bytes for a \(size)-byte miss")
            // Four hits at once, each reading the stored file in 64 KiB parts far faster than
            // its client takes them. Without the writer waiting for the event loop every few
            // parts (`WritePacing`), each queued megabytes before learning that its channel
            // was full: 90-160 MB over the miss's peak. With it, 0-3 MB.
            let hits = try await withThrowingTaskGroup(of: (HTTPResponse, PatternOrigin.Checker).self) { group in
                for _ in 0..<4 {
                    group.addTask { try await Self.fetch("/huge", port: port, seed: seed, via: transport) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let afterHits = try Self.peakResidentBytes(of: child.processIdentifier)
            for (hit, served) in hits {
                #expect(hit.headerFields[HTTPField.Name("Cache-Status")!] == "stash; hit")
                #expect(served.count == size && served.mismatchAt == nil)
            }
            let hitBound = 24 << 20
            #expect(afterHits - after < hitBound, "peak resident memory grew by \(afterHits - after) bytes serving four \(size)-byte hits")
            print("memoryStaysBoundedWhateverTheBodySize: VmHWM \(before) before, \(after) after the miss, \(afterHits) after four hits")
        }
    }

    /// The port a `stash http-proxy` child reports in its banner.
    static func port(from child: ChildProcess) throws -> Int {
        let banner = child.readLine() ?? ""
        guard let range = banner.range(of: "listening on http://127.0.0.1:"),
              let port = Int(banner[range.upperBound...].prefix { $0.isNumber }) else {
            throw StashError(.io, "the proxy did not start: \(banner)")
        }
        return port
    }

    /// `VmHWM` of process `pid`: the most resident memory it has had, in bytes.
    static func peakResidentBytes(of pid: Int32) throws -> Int {
        guard let bytes = PeakResidentMemory.bytes(of: "\(pid)") else { throw StashError(.io, "no VmHWM in /proc/\(pid)/status") }
        return bytes
    }
}
