import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import StashCore
import StashHTTP

/// A stored response ready for the wire, kept beside it in the cache
/// (``StashHTTP/FreshHit/prepared(_:)``): its body as a `ByteBuffer`, copied from the
/// stored `Data` once rather than on every hit, and its response head, both as NIO's HTTP/1
/// encoder takes it and as the bytes that encoder writes for it (joined to a small body),
/// made again only when the `Age` it carries changes (at most once a second), for `GET` and
/// for `HEAD`. The head is the one ``HTTPCachingProxy/respond(to:body:)`` gives, so the bytes on the wire are the
/// same whichever path answers.
final class WireForm: Sendable {
    let body: ByteBuffer
    private let heads = LockedValue<(get: Head?, head: Head?)>((nil, nil))

    /// One response head, for one `Age`.
    struct Head: Sendable {
        let age: String
        let head: HTTPResponseHead
        /// `head` as NIO's encoder writes it: status line, fields, empty line.
        let bytes: ByteBuffer
        /// For a `GET` whose body is at most ``wholeLimit`` bytes: `bytes` and the body in one
        /// buffer, so that a hit is one write (a copy of the body made once a second).
        let whole: ByteBuffer?
    }

    /// The largest body a ``Head`` is joined with.
    static let wholeLimit = 16 * 1024

    init(body: Data) { self.body = ByteBuffer(bytes: body) }

    /// The response head for `hit`, with its current `Age`.
    func head(for hit: FreshHit) -> Head {
        let age = hit.age
        let isHead = hit.method == .head
        if let kept = heads.withLock({ isHead ? $0.head : $0.get }), kept.age == age { return kept }
        let response = HTTPCachingProxy.clientResponse(hit.answer(), method: hit.method)
        let status = HTTPResponseStatus(statusCode: response.status.code, reasonPhrase: response.status.reasonPhrase)
        let fields = HTTPHeaders(response.headerFields.map { ($0.name.rawName, $0.value) })
        var bytes = ByteBuffer()
        bytes.writeString("HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n")
        for (name, value) in fields { bytes.writeString("\(name): \(value)\r\n") }
        bytes.writeString("\r\n")
        var whole: ByteBuffer?
        if !isHead, body.readableBytes <= Self.wholeLimit {
            var joined = ByteBuffer()
            joined.reserveCapacity(bytes.readableBytes + body.readableBytes)
            joined.writeImmutableBuffer(bytes)
            joined.writeImmutableBuffer(body)
            whole = joined
        }
        let made = Head(age: age, head: HTTPResponseHead(version: .http1_1, status: status, headers: fields), bytes: bytes, whole: whole)
        heads.withLock { if isHead { $0.head = made } else { $0.get = made } }
        return made
    }
}
