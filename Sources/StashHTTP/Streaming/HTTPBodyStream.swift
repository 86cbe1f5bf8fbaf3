public import Foundation
import StashCore

/// A response body as it arrives: whole already, or in parts read one after another.
///
/// ```swift
/// let answer = try await cache.streamResponse(to: request) { request, body in
///     try await transport.stream(request, body: body)
/// }
/// for try await part in answer.body { try await output.write(part) }
/// ```
///
/// One task reads a stream, once: a stream made from parts hands each part out a single
/// time, so two readers would each see some of them. Reading it to its end is what lets a
/// cache that tees it (``HTTPCache/streamResponse(to:body:policy:revalidatesInBackground:send:)``)
/// store the response; a stream dropped part way stores nothing. An error thrown by `next`
/// means the body ended early: what was read is not the whole body. A stream is `Sendable`
/// (it may be handed to another task) but is read by one task at a time.
public struct HTTPBodyStream: AsyncSequence, Sendable {
    /// A part of the body: the bytes that arrived together.
    ///
    /// ```swift
    /// for try await part in body { print("\(part.count) more bytes") }
    /// ```
    public typealias Element = Data

    enum Source: Sendable {
        case whole(Data)
        case parts(@Sendable () async throws -> Data?)
    }

    let source: Source
    /// Whether the transport vouches that the end of the parts is the end of the body
    /// (``init(next:endsFramed:)``); a whole body always is. A stream you build around
    /// another one passes it on, so that a cache after yours can still store the body:
    ///
    /// ```swift
    /// let counted = HTTPBodyStream(next: { try await parts.next() }, endsFramed: inner.endsFramed)
    /// ```
    ///
    /// A constant, safe to read from any thread. It vouches for the end, never for a crash:
    /// a process killed while a cache tees a framed stream stores nothing of it (the body
    /// is stored only once its end was read).
    public let endsFramed: Bool

    /// A body already whole.
    ///
    /// ```swift
    /// let body = HTTPBodyStream(Data("hello".utf8))
    /// ```
    public init(_ data: Data) {
        source = .whole(data)
        endsFramed = true
    }

    /// A body read part by part: `next` returns the next part, `nil` at the end, and throws
    /// when the body cannot be read to its end.
    ///
    /// ```swift
    /// let body = HTTPBodyStream(next: { try await socket.read(upTo: 64 << 10) })
    /// let h2 = HTTPBodyStream(next: { try await stream.read() }, endsFramed: true)
    /// ```
    ///
    /// `endsFramed` says that the transport framed the body's end itself, so that `nil`
    /// from `next` is its real end and a cut one is thrown: an HTTP/2 or HTTP/3 stream's
    /// end flag, or HTTP/1.1 framing the transport checked. Leave it `false` (the default)
    /// when the end may just be the connection closing: a cache then stores the body only
    /// when the response's own fields frame it (`Content-Length`, chunked
    /// `Transfer-Encoding`, or a status without content), since a cut connection would end
    /// it the same way.
    ///
    /// **Threads:** `next` is called by one reader at a time, never concurrently, and the
    /// stream is read once: each part is handed out a single time. A stream you build
    /// around another one (to count, transform or tee its parts) does not inherit its
    /// `endsFramed`: pass `endsFramed: inner.endsFramed` on, or the cache after you will not
    /// store a body only the transport framed. (The cache's own wrappers pass it on.)
    public init(next: @escaping @Sendable () async throws -> Data?, endsFramed: Bool = false) {
        source = .parts(next)
        self.endsFramed = endsFramed
    }

    /// The bytes, when the body is whole already (no part has to be read).
    package var wholeData: Data? {
        if case let .whole(data) = source { return data }
        return nil
    }

    /// Reads the body to its end and returns it in one piece.
    ///
    /// ```swift
    /// let data = try await answer.body.collect()
    /// ```
    ///
    /// - throws: What reading a part throws.
    public func collect() async throws -> Data {
        if let wholeData { return wholeData }
        var data = Data()
        for try await part in self { data.append(part) }
        return data
    }

    /// Reads the body to its end and returns it in one piece, refusing to hold more than
    /// `limit` bytes.
    ///
    /// ```swift
    /// let data = try await answer.body.collect(upTo: 64 << 20)
    /// ```
    ///
    /// - throws: `StashError(.bodyTooLarge)` once the body passes `limit` (the rest is not
    ///   read); what reading a part throws.
    public func collect(upTo limit: Int) async throws -> Data {
        if let wholeData {
            guard wholeData.count <= limit else { throw Self.tooLarge(limit) }
            return wholeData
        }
        var data = Data()
        for try await part in self {
            guard data.count + part.count <= limit else { throw Self.tooLarge(limit) }
            data.append(part)
        }
        return data
    }

    private static func tooLarge(_ limit: Int) -> StashError {
        StashError(.bodyTooLarge, "the body is longer than \(limit) bytes")
    }

    /// Reads the body to its end and forgets it (a tee on the way still sees every part).
    func drain() async throws {
        for try await _ in self {}
    }

    /// The iterator `for try await` uses; make one per stream.
    ///
    /// ```swift
    /// var parts = body.makeAsyncIterator()
    /// let first = try await parts.next()
    /// ```
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: source) }

    /// Hands out the parts of an ``HTTPBodyStream``.
    ///
    /// ```swift
    /// var parts = body.makeAsyncIterator()
    /// while let part = try await parts.next() { handle(part) }
    /// ```
    public struct AsyncIterator: AsyncIteratorProtocol {
        var source: HTTPBodyStream.Source?

        /// The next part, or `nil` at the end of the body.
        ///
        /// ```swift
        /// let part = try await parts.next()
        /// ```
        ///
        /// - throws: What the body's source throws: the body ended before it was whole.
        public mutating func next() async throws -> Data? {
            switch source {
            case nil:
                return nil
            case let .whole(data)?:
                source = nil
                return data.isEmpty ? nil : data
            case let .parts(next)?:
                guard let part = try await next() else {
                    source = nil
                    return nil
                }
                return part
            }
        }
    }
}
