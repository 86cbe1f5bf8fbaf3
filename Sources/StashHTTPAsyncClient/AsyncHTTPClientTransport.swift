public import AsyncHTTPClient
public import Foundation
public import HTTPTypes
public import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import StashCore
public import StashHTTP

/// A transport over AsyncHTTPClient (SwiftNIO), for servers and command-line tools.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// let client = CachingHTTPClient(cache: cache, transport: transport)
/// defer { Task { try await transport.shutdown() } }
/// ```
///
/// It keeps every field line as sent (multi-valued fields stay separate), never follows
/// redirects and never decompresses, so the cache stores what the origin sent. Call
/// ``shutdown()`` when done with a transport that created its own client. Thread-safe.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The underlying client.
    public let client: HTTPClient
    /// How long one exchange may take.
    public let timeout: TimeAmount
    /// The largest response body ``send(_:body:)`` accepts (``stream(_:body:)`` has no cap).
    public let maximumBodySize: Int
    private let ownsClient: Bool

    /// Creates a transport with its own client (redirects disallowed, reads of up to 1 MiB).
    ///
    /// ```swift
    /// let transport = AsyncHTTPClientTransport(timeout: .seconds(60), readTimeout: .seconds(15))
    /// ```
    ///
    /// - parameters:
    ///   - timeout: How long one whole exchange may take.
    ///   - readTimeout: How long the server may go without sending a byte while a response
    ///     is awaited or read; past it the exchange fails with `HTTPClientError.readTimeout`.
    ///     `nil`: only `timeout` applies.
    ///   - maximumBodySize: The largest response body accepted.
    public init(timeout: TimeAmount = .seconds(60), readTimeout: TimeAmount? = nil, maximumBodySize: Int = 64 << 20) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.decompression = .disabled
        configuration.timeout.read = readTimeout
        // Reads of up to 1 MiB where NIO's default stops at 64 KiB: each read of a large HTTP/1
        // body is one hop from the event loop to the task reading it, so a 200 MB body passing
        // through costs 200 hops, not 3,000 (the bench's proxy-miss-large: about 1.4× the
        // throughput of 256 KiB reads). The size grows only while reads fill it, but NIO keeps
        // a connection's read buffers (up to four) at the largest size they reached while the
        // connection lives: up to 4 MiB per pooled connection that once carried a large body.
        // (An HTTP/2 body still comes in frames of the stream's size.)
        configuration.http1_1ConnectionDebugInitializer = { channel in
            channel.setOption(ChannelOptions.recvAllocator, value: Self.bodyReads)
        }
        configuration.http2ConnectionDebugInitializer = configuration.http1_1ConnectionDebugInitializer
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
        ownsClient = true
    }

    /// Creates a transport over an existing client, which the caller shuts down. The client's
    /// own configuration applies: its reads are NIO's (up to 64 KiB) unless it sets them.
    public init(client: HTTPClient, timeout: TimeAmount = .seconds(60), maximumBodySize: Int = 64 << 20) {
        self.client = client
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
        ownsClient = false
    }

    /// Shuts down the client this transport created.
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    public func send(_ request: HTTPRequest, body: Data) async throws -> (HTTPResponse, Data) {
        let response = try await execute(request, body: body)
        let buffer = try await response.body.collect(upTo: maximumBodySize)
        return (Self.head(of: response), Data(buffer.readableBytesView))
    }

    /// Sends `request` with `body` and returns the response once its head has arrived, with
    /// its body read part by part as the origin sends it, whatever its size
    /// (``maximumBodySize`` applies only to ``send(_:body:)``).
    ///
    /// ```swift
    /// let (response, body) = try await transport.stream(request, body: Data())
    /// for try await part in body { try file.write(contentsOf: part) }
    /// ```
    ///
    /// Reading the body throws when the origin closes before its end (fewer bytes than its
    /// `Content-Length`, or a chunked body without its last chunk) or stops sending for the
    /// read timeout; ``timeout`` covers the exchange only until the response head arrives, so
    /// a long body is never cut by it. A body not read to its end is abandoned with its
    /// connection. An HTTP/2 response's body is marked framed (`endsFramed`: its stream's end
    /// flag ends it), so a cache stores it even without `Content-Length`.
    ///
    /// - throws: `HTTPClientError` (or a NIO error) when no response head arrives.
    public func stream(_ request: HTTPRequest, body: Data) async throws -> (HTTPResponse, HTTPBodyStream) {
        Self.streamed(try await execute(request, body: body))
    }

    /// Sends `request` with a body read part by part as `body` gives it (an upload passed on
    /// as it arrives, never collected whole), and returns as ``stream(_:body:)`` does.
    ///
    /// ```swift
    /// let (response, answer) = try await transport.stream(request, body: upload, length: 1_000_000)
    /// ```
    ///
    /// Thread-safe, like the transport; `body` is read by one task. Nothing is stored.
    /// AsyncHTTPClient may keep reading `body` after the response head has arrived (an origin
    /// that answers before reading an upload) and may cancel the task that reads it at any
    /// time, so `body` must stay valid on its own: hand it parts (as the caching proxy does)
    /// rather than an iterator another task owns or finishes with.
    ///
    /// - parameters:
    ///   - request: The request to send.
    ///   - body: The request's body, read part by part as it is sent.
    ///   - length: The body's length, sent as `Content-Length`; `nil` sends it chunked.
    /// - throws: What reading `body` throws, `HTTPClientError` (or a NIO error) when no
    ///   response head arrives. A request whose body was read is never sent again.
    public func stream(_ request: HTTPRequest, body: HTTPBodyStream, length: Int?) async throws -> (HTTPResponse, HTTPBodyStream) {
        var outgoing = try Self.clientRequest(request)
        let parts = body.map { ByteBuffer(bytes: $0) }
        outgoing.body = .stream(parts, length: length.map { .known(Int64($0)) } ?? .unknown)
        let response = try await client.execute(outgoing, timeout: timeout)
        return Self.streamed(response)
    }

    /// `response` with its body read part by part.
    private static func streamed(_ response: HTTPClientResponse) -> (HTTPResponse, HTTPBodyStream) {
        let parts = BodyParts(response.body.makeAsyncIterator())
        // HTTP/2 ends a body with the stream's END_STREAM flag (a reset is an error), so its
        // end is framed even without `Content-Length`; an HTTP/1 body without one may be
        // ended by the connection closing, which a cut would do too.
        return (head(of: response), HTTPBodyStream(next: { try await parts.next() }, endsFramed: response.version.major >= 2))
    }

    /// Sends `request`; the response's body is still to be read.
    private func execute(_ request: HTTPRequest, body: Data) async throws -> HTTPClientResponse {
        let outgoing = try Self.clientRequest(request, body: body)
        do {
            return try await client.execute(outgoing, timeout: timeout)
        } catch where Self.idempotentMethods.contains(request.method) && Self.lostBeforeTheHead(error) {
            // A pooled connection can carry leftovers of an earlier, mis-framed response (an
            // origin that sent more bytes than its Content-Length), so the parser fails on
            // this response's head; or the origin closes it as it is handed to this request
            // (then it fails before it is even written).
            // The broken connection is discarded, and RFC 9110 §9.2.2 lets an idempotent
            // request be sent again, once, on another. A response whose head arrived and
            // whose body was cut short is not retried: the origin answered.
            return try await client.execute(outgoing, timeout: timeout)
        }
    }

    /// The status and fields of `response`, every field line as sent.
    private static func head(of response: HTTPClientResponse) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let status = HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase)
        return HTTPResponse(status: status, headerFields: fields)
    }

    /// The parts of one response body, read by one task (``HTTPBodyStream``'s contract), so
    /// the iterator is never used from two places at once.
    private final class BodyParts: @unchecked Sendable {
        private var iterator: HTTPClientResponse.Body.AsyncIterator

        init(_ iterator: HTTPClientResponse.Body.AsyncIterator) { self.iterator = iterator }

        /// The next part: one that fills most of its read buffer shares its bytes (a large
        /// body passing through is not copied once more), a smaller one is copied so that it
        /// does not keep a whole read buffer alive.
        func next() async throws -> Data? {
            guard var part = try await iterator.next() else { return nil }
            // The read buffer's own size, not the part's: a part is a slice of it.
            let shares = part.readableBytes >= 16 << 10 && part.readableBytes * 2 >= part.storageCapacity
            return part.readData(length: part.readableBytes, byteTransferStrategy: shares ? .noCopy : .copy) ?? Data()
        }
    }

    private static func clientRequest(_ request: HTTPRequest, body: Data) throws -> HTTPClientRequest {
        var outgoing = try clientRequest(request)
        if !body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        return outgoing
    }

    /// `request` without its body. Its URL is built from parts, never by joining strings:
    /// the scheme, the host and port of a checked ``StashHTTP/Authority``, and the path and
    /// query of an origin-form target (``StashHTTP/OriginForm``), each escaped where RFC 3986
    /// asks, so that no byte of a target can turn into user information or another host.
    /// A `Host` field in `request` is sent as it is (a proxy forwarding a virtual host's name);
    /// without one, the client derives it from the URL.
    ///
    /// - throws: `StashError(.unsupportedValue)` when the scheme is not `http` or `https`, the
    ///   authority is not a host with an optional port, or the path is not in origin form.
    static func clientRequest(_ request: HTTPRequest) throws -> HTTPClientRequest {
        let scheme = request.scheme?.lowercased() ?? "http"
        guard scheme == "http" || scheme == "https" else {
            throw StashError(.unsupportedValue, "the scheme \(scheme) is not http or https")
        }
        guard let authority = request.authority.flatMap({ Authority($0) }), !authority.host.isEmpty else {
            throw StashError(.unsupportedValue, "the authority \(request.authority ?? "(none)") is not a host with an optional port")
        }
        guard let parts = OriginForm.parts(of: request.path ?? "/") else {
            throw StashError(.unsupportedValue, "the path \(request.path ?? "") is not an origin-form target")
        }
        var components = URLComponents()
        components.scheme = scheme
        components.percentEncodedHost = authority.host
        components.port = authority.port
        components.percentEncodedPath = parts.path
        components.percentEncodedQuery = parts.query
        guard let url = components.string else {
            throw StashError(.unsupportedValue, "no URL for \(scheme)://\(authority.field)\(parts.path)")
        }
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields where !managedByClient.contains(field.name.canonicalName) {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let host = request.headerFields[.hostField] { outgoing.headers.replaceOrAdd(name: "Host", value: host) }
        return outgoing
    }

    /// How a connection's reads are sized: from 2 KiB, doubling while reads fill the buffer,
    /// up to 1 MiB.
    private static let bodyReads = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 1 << 20)

    /// Whether `error` ended a request before any response head: the connection broke
    /// (closed, reset, or bytes that are no response), not a timeout or a refusal. An origin
    /// that hangs up on a kept connection as the pool hands it to a request shows up three
    /// ways, by timing: the client fails the request on the closed channel before writing
    /// it, or writes it and reads the close, or reads the reset the origin's system sends
    /// back for the bytes written after its close.
    private static func lostBeforeTheHead(_ error: any Error) -> Bool {
        if error is HTTPParserError { return true }
        if let error = error as? HTTPClientError { return error == .remoteConnectionClosed }
        if let error = error as? ChannelError, case .ioOnClosedChannel = error { return true }
        if let error = error as? IOError { return error.errnoCode == ECONNRESET || error.errnoCode == EPIPE }
        return false
    }

    /// Methods that may be retried automatically (RFC 9110 §9.2.2).
    private static let idempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace, .put, .delete]

    /// Fields the client sets itself from the URL and the body.
    private static let managedByClient: Set<String> = ["host", "content-length", "transfer-encoding"]
}
