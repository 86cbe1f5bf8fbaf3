import HTTPTypes
import NIOCore
import NIOHTTP1

/// Applies ``RequestAdmission`` to every request head NIO's HTTP/1 decoder reports, right
/// behind the decoder, so that no handler after it (HummingbirdCore's conversion, the
/// responder) sees a target or `Host` the rule did not admit. It also tells the connection's
/// ``ClientTimeouts`` of each head, which stops the header clock of a head whose end the
/// byte scanner missed, and of each request's end.
///
/// An admitted head leaves with its target in origin form and one `Host`, the cache key's
/// authority: HummingbirdCore's conversion then gives the request the authority and path
/// the cache looks up. A refused head (or `OPTIONS *`) leaves with the target `*` and a
/// ``verdictField`` saying why, and the responder answers it in its turn, so that answers
/// keep the order of pipelined requests (with ``targetField``, the target it had, for the
/// access log). A client's own ``verdictField`` and ``targetField`` are removed from every head. Event-loop confined, like every channel handler.
final class RequestGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Carries the gate's verdict on a head it did not admit to the responder.
    static let verdictField = "Stash-Gate-Verdict"
    static let verdictName = HTTPField.Name(verdictField)!
    /// Carries the target a refused head had (now `*`), for the access log.
    static let targetField = "Stash-Gate-Target"
    static let targetName = HTTPField.Name(targetField)!
    /// The ``verdictField`` value of `OPTIONS *`.
    static let serverOptions = "options"

    private let admission: RequestAdmission
    /// Told of every head as the decoder reports it (``ClientTimeouts/noteHeadDecoded()``).
    private let timeouts: ClientTimeouts?

    init(admission: RequestAdmission, timeouts: ClientTimeouts?) {
        self.admission = admission
        self.timeouts = timeouts
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            if case .end = unwrapInboundIn(data) { timeouts?.noteRequestEnd() }
            context.fireChannelRead(data)
            return
        }
        timeouts?.noteHeadDecoded()
        head.headers.remove(name: Self.verdictField)
        head.headers.remove(name: Self.targetField)
        let values = head.headers["Host"]
        let hosts: RequestAdmission.Hosts = switch values.count {
        case 0: .none
        case 1: .one(values[0])
        default: .several
        }
        let requiresHost = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        let decision: RequestAdmission.Decision = if let method = HTTPRequest.Method(head.method.rawValue) {
            admission.decide(method: method, target: head.uri, hosts: hosts, requiresHost: requiresHost)
        } else {
            .refuse("an unknown method")
        }
        switch decision {
        case .admit(let path, let authority):
            head.uri = path
            head.headers.replaceOrAdd(name: "Host", value: authority)
        case .serverOptions:
            head.uri = "*"
            head.headers.add(name: Self.verdictField, value: Self.serverOptions)
        case .refuse(let reason):
            head.headers.add(name: Self.targetField, value: head.uri)
            head.uri = "*"
            head.headers.add(name: Self.verdictField, value: reason)
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
