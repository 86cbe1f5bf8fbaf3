import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import StashCore
import StashHTTP

/// A stored response ready for the wire, kept beside it in the cache
/// (``StashHTTP/FreshHit/prepared(_:)``): its body as a `ByteBuffer`, copied from the
/// stored `Data` once rather than on every hit, and its response head as NIO's HTTP/1
/// encoder takes it, made again only when the `Age` it carries changes (at most once a
/// second). The head is the one ``HTTPCachingProxy/respond(to:body:)`` gives, so the bytes
/// on the wire are the same whichever path answers.
final class WireForm: Sendable {
    let body: ByteBuffer
    private let head = LockedValue<(age: String, head: HTTPResponseHead)?>(nil)

    init(body: Data) { self.body = ByteBuffer(bytes: body) }

    /// The response head for `hit`, with its current `Age`.
    func head(for hit: FreshHit) -> HTTPResponseHead {
        let age = hit.age
        if let kept = head.withLock({ $0 }), kept.age == age { return kept.head }
        let response = HTTPCachingProxy.clientResponse(hit.answer(), method: hit.request.method)
        let made = HTTPResponseHead(
            version: .http1_1,
            status: HTTPResponseStatus(statusCode: response.status.code, reasonPhrase: response.status.reasonPhrase),
            headers: HTTPHeaders(response.headerFields.map { ($0.name.rawName, $0.value) })
        )
        head.withLock { $0 = (age, made) }
        return made
    }
}
