import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Stash
import StashHTTPAsyncClient
import StashHTTPServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `stash-bench http`: the library API against Foundation's URLCache on the same 1 KB
/// responses in the same order, then requests per second through the caching proxy.
enum HTTPSuite {
    static let suite = "http"

    @Sendable static func run(_ context: BenchContext) async throws {
        let count = context.scaled(10_000)
        // Foundation's URLCache on Linux does work proportional to its size on every store
        // and miss (about 80 ms a store at 1,000 entries), so it gets the first 1,000 only.
        let peerCount = min(count, context.scaled(1_000))
        let body = Data(repeating: 0x61, count: 1024)
        let scratch = try context.makeScratch("http")
        defer { context.removeScratch(scratch) }

        let cache = try HTTPCache(memoryCapacity: 64 << 20, diskCapacity: 256 << 20, directory: scratch.appendingPathComponent("stash"))
        let urlCache = URLCache(memoryCapacity: 64 << 20, diskCapacity: 256 << 20, diskPath: scratch.appendingPathComponent("urlcache").path)
        let fields: HTTPFields = [.cacheControl: "max-age=3600", .contentType: "text/plain", .eTag: "\"v1\""]
        let request = { (index: Int) in HTTPRequest(method: .get, scheme: "https", authority: "bench.test", path: "/item/\(index)?page=1") }
        let urlRequest = { (index: Int) in URLRequest(url: URL(string: "https://bench.test/item/\(index)?page=1")!) }
        let urlResponse = { (index: Int) in
            CachedURLResponse(
                response: HTTPURLResponse(url: URL(string: "https://bench.test/item/\(index)?page=1")!, statusCode: 200, httpVersion: "HTTP/1.1",
                                          headerFields: ["Cache-Control": "max-age=3600", "Content-Type": "text/plain", "ETag": "\"v1\""])!,
                data: body
            )
        }

        context.measure(suite: suite, case: "store", impl: "stash", ops: count) {
            for index in 0..<count { cache.storeResponse(HTTPResponse(status: .ok, headerFields: fields), body: body, for: request(index)) }
        }
        context.measure(suite: suite, case: "store", impl: "URLCache", ops: peerCount) {
            for index in 0..<peerCount { urlCache.storeCachedResponse(urlResponse(index), for: urlRequest(index)) }
        }
        var found = 0
        context.measure(suite: suite, case: "lookup-hit", impl: "stash", ops: count) {
            for index in 0..<count where cache.cachedResponse(for: request(index)) != nil { found += 1 }
        }
        context.measure(suite: suite, case: "lookup-hit", impl: "URLCache", ops: peerCount) {
            for index in 0..<peerCount where urlCache.cachedResponse(for: urlRequest(index)) != nil { found += 1 }
        }
        context.measure(suite: suite, case: "lookup-miss", impl: "stash", ops: count) {
            for index in count..<(2 * count) where cache.cachedResponse(for: request(index)) != nil { found += 1 }
        }
        context.measure(suite: suite, case: "lookup-miss", impl: "URLCache", ops: peerCount) {
            for index in count..<(count + peerCount) where urlCache.cachedResponse(for: urlRequest(index)) != nil { found += 1 }
        }
        try varyCase(context, count: count, peerCount: peerCount, body: body, scratch: scratch)
        context.reporter.note("found \(found) of \(2 * (count + peerCount)) lookups (hits expected for half)")
        try await proxyHit(context)
    }

    /// Three language variants per URL; lookups ask for the middle one. URLCache ignores
    /// `Vary`, so it returns whichever variant was stored last.
    private static func varyCase(_ context: BenchContext, count: Int, peerCount: Int, body: Data, scratch: URL) throws {
        let cache = try HTTPCache(memoryCapacity: 64 << 20, diskCapacity: 256 << 20, directory: scratch.appendingPathComponent("stash-vary"))
        let urlCache = URLCache(memoryCapacity: 64 << 20, diskCapacity: 256 << 20, diskPath: scratch.appendingPathComponent("urlcache-vary").path)
        let languages = ["en", "de", "fr"]
        let urls = max(1, count / languages.count)
        let peerURLs = max(1, peerCount / languages.count)
        func request(_ index: Int, _ language: String) -> HTTPRequest {
            var request = HTTPRequest(method: .get, scheme: "https", authority: "bench.test", path: "/vary/\(index)")
            request.headerFields[.acceptLanguage] = language
            return request
        }
        func urlRequest(_ index: Int, _ language: String) -> URLRequest {
            var request = URLRequest(url: URL(string: "https://bench.test/vary/\(index)")!)
            request.setValue(language, forHTTPHeaderField: "Accept-Language")
            return request
        }
        let fields: HTTPFields = [.cacheControl: "max-age=3600", .vary: "Accept-Language"]
        for index in 0..<urls {
            for language in languages {
                cache.storeResponse(HTTPResponse(status: .ok, headerFields: fields), body: body, for: request(index, language))
                guard index < peerURLs else { continue }
                let response = HTTPURLResponse(url: URL(string: "https://bench.test/vary/\(index)")!, statusCode: 200, httpVersion: "HTTP/1.1",
                                               headerFields: ["Cache-Control": "max-age=3600", "Vary": "Accept-Language"])!
                urlCache.storeCachedResponse(CachedURLResponse(response: response, data: body), for: urlRequest(index, language))
            }
        }
        var found = 0
        context.measure(suite: suite, case: "lookup-vary", impl: "stash", ops: urls) {
            for index in 0..<urls where cache.cachedResponse(for: request(index, "de")) != nil { found += 1 }
        }
        context.measure(suite: suite, case: "lookup-vary", impl: "URLCache", ops: peerURLs) {
            for index in 0..<peerURLs where urlCache.cachedResponse(for: urlRequest(index, "de")) != nil { found += 1 }
        }
    }

    /// A Hummingbird origin, the caching proxy in front of it, and an AsyncHTTPClient
    /// client keeping `concurrency` requests in flight over 100 primed URLs.
    private static func proxyHit(_ context: BenchContext) async throws {
        let requests = context.scaled(20_000)
        let concurrency = 32
        let router = Router()
        router.get("/item/{id}") { _, _ -> Response in
            var response = Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(repeating: 0x61, count: 1024)))
            response.headers[.cacheControl] = "max-age=3600"
            return response
        }
        let originReady = AsyncStream<Int>.makeStream()
        let origin = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                                 onServerRunning: { originReady.continuation.yield($0.localAddress?.port ?? 0) })
        let originTask = Task { try await origin.run() }
        var originPorts = originReady.stream.makeAsyncIterator()
        let originPort = await originPorts.next() ?? 0

        let cache = try HTTPCache(memoryCapacity: 64 << 20, diskCapacity: 0, mode: .shared)
        let proxy = HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:\(originPort)")!, cache: cache)
        let proxyReady = AsyncStream<Int>.makeStream()
        let proxyTask = Task { try await proxy.run(port: 0) { proxyReady.continuation.yield($0) } }
        var proxyPorts = proxyReady.stream.makeAsyncIterator()
        let proxyPort = await proxyPorts.next() ?? 0

        let transport = AsyncHTTPClientTransport(timeout: .seconds(30))
        let request: @Sendable (Int) -> HTTPRequest = { index in
            HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(proxyPort)", path: "/item/\(index % 100)")
        }
        for index in 0..<100 { _ = try await transport.send(request(index), body: Data()) }
        try await context.measureAsync(suite: suite, case: "proxy-hit", impl: "stash", ops: requests, extra: ["concurrency": "\(concurrency)"]) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<requests {
                    if index >= concurrency { try await group.next() }
                    group.addTask { _ = try await transport.send(request(index), body: Data()) }
                }
                try await group.waitForAll()
            }
        }
        context.reporter.note("proxy-hit: \(cache.statistics)")
        try await transport.shutdown()
        try await proxy.shutdown()
        proxyTask.cancel()
        originTask.cancel()
    }
}
