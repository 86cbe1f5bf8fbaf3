import Foundation
import HTTPTypes
public import Hummingbird
import NIOCore
public import StashHTTP

/// Hummingbird middleware that caches a server's own responses by RFC 9111, so hot routes
/// are computed once per freshness lifetime.
///
/// ```swift
/// let cache = try HTTPCache(memoryCapacity: 8 << 20, diskCapacity: 0, mode: .shared)
/// let router = Router()
/// router.add(middleware: HTTPCacheMiddleware(cache: cache))
/// router.get("/prices") { _, _ in
///     var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: prices())))
///     response.headers[.cacheControl] = "max-age=5"
///     return response
/// }
/// ```
///
/// Routes opt in with their own `Cache-Control` (or `Expires`, or `Last-Modified` for
/// heuristic freshness); anything else passes through untouched. Successful unsafe
/// requests invalidate the route, and conditional requests get `304`. Concurrent identical
/// misses wait for one computation when the cache collapses requests. Thread-safe.
public struct HTTPCacheMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The cache holding the route's responses.
    public let cache: HTTPCache
    /// The largest request body read (the cache needs it whole to forward it).
    public let maximumRequestBodySize: Int

    /// Creates the middleware over `cache`.
    public init(cache: HTTPCache, maximumRequestBodySize: Int = 4 << 20) {
        self.cache = cache
        self.maximumRequestBodySize = maximumRequestBodySize
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: maximumRequestBodySize)
        var head = request.head
        if head.authority == nil { head.authority = "localhost" }
        if head.scheme == nil { head.scheme = "http" }
        let answer = try await withoutActuallyEscaping(next) { next in
            let route = UncheckedRoute(next: next, context: context)
            return try await cache.respond(to: head, body: Data(body.readableBytesView), revalidatesInBackground: false) { forwarded, data in
                let inner = Request(head: forwarded, body: RequestBody(buffer: ByteBuffer(bytes: data)))
                let response = try await route.next(inner, route.context)
                return (response.head, try await Self.collect(response.body))
            }
        }
        var fields = answer.response.headerFields
        fields[.contentLength] = nil
        return Response(
            status: answer.response.status, headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        )
    }

    private static func collect(_ body: ResponseBody) async throws -> Data {
        let sink = BodySink()
        try await body.write(CollectingWriter(sink: sink))
        return sink.data.withLock { $0 }
    }
}

/// Carries the route's `next` into the cache's exchange closure. The cache calls it only
/// while `handle` is running: background revalidation is turned off for this reason.
private struct UncheckedRoute<Context>: @unchecked Sendable {
    let next: (Request, Context) async throws -> Response
    let context: Context
}

private final class BodySink: Sendable {
    let data = LockedData()
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var value = Data()
    func append(_ buffer: ByteBuffer) { lock.withLock { value.append(contentsOf: buffer.readableBytesView) } }
    func withLock<T>(_ body: (Data) -> T) -> T { lock.withLock { body(value) } }
}

private struct CollectingWriter: ResponseBodyWriter {
    let sink: BodySink
    mutating func write(_ buffer: ByteBuffer) async throws { sink.data.append(buffer) }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
