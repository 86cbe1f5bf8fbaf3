import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import StashCore
import StashHTTP

/// Why the upstream gave no usable answer, as the proxy tells its client: `504 Gateway
/// Timeout` for timeouts and `502 Bad Gateway` otherwise, with a body that names only the
/// status and a `Cache-Status` detail that names the cause (never internal type names).
struct UpstreamFailure: Equatable {
    var status: HTTPResponse.Status
    /// The cause, for `Cache-Status`'s `detail`.
    var detail: String

    /// Classifies an error thrown while talking to the upstream.
    init(_ error: any Error) {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout:
                self.init(.gatewayTimeout, "upstream timeout")
            case .remoteConnectionClosed:
                self.init(.badGateway, "upstream closed early")
            default:
                self.init(.badGateway, "upstream error")
            }
        case let error as StashError where error.code == .bodyTooLarge:
            self.init(.badGateway, "upstream body too large")
        case is HTTPParserError:
            self.init(.badGateway, "upstream closed early or sent a malformed response")
        case is NIOConnectionError:
            self.init(.badGateway, "upstream refused the connection")
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            self.init(.badGateway, "upstream refused the connection")
        case is ChannelError:
            self.init(.badGateway, "upstream closed early")
        default:
            self.init(.badGateway, "upstream unreachable")
        }
    }

    init(_ status: HTTPResponse.Status, _ detail: String) {
        self.status = status
        self.detail = detail
    }

    /// The answer to the client; no body for `HEAD`.
    func response(method: HTTPRequest.Method) -> (HTTPResponse, Data) {
        let message = Data((status == .gatewayTimeout ? "gateway timeout\n" : "bad gateway\n").utf8)
        var fields = HTTPFields()
        fields[.contentType] = "text/plain; charset=utf-8"
        fields[.contentLength] = String(message.count)
        fields[.cacheStatus] = "stash; fwd=miss; detail=\"\(detail)\""
        return (HTTPResponse(status: status, headerFields: fields), method == .head ? Data() : message)
    }
}
