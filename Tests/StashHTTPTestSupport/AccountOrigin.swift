import Foundation
public import HTTPTypes
import HummingbirdCore
import NIOCore
public import StashCore

/// An origin on 127.0.0.1 that answers one page differently for anonymous clients and for a
/// signed-in one, as sites with accounts do: the tests of what an authorized client's
/// exchange may change in a shared cache (RFC 9111 §3.5) run against it.
///
/// - Without `Authorization`: `200`, `ETag: "v1"`, `Cache-Control: max-age=5`, the body
///   `shared`.
/// - With `Authorization`: the same `ETag` and a body of the same length (`alice!`), but
///   `Cache-Control: private, max-age=86400` and `X-Account: alice`; a `304` with those
///   fields when the request carries `If-None-Match: "v1"`.
///
/// `Date` comes from `clock`, so a cache on the same manual clock sees no delay.
///
/// ```swift
/// let origin = try await AccountOrigin.start(clock: clock)
/// defer { origin.stop() }
/// // GET http://127.0.0.1:\(origin.port)/p
/// ```
public final class AccountOrigin: Sendable {
    /// The port it listens on.
    public let port: Int
    private let task: Task<Void, any Error>
    private let received = LockedValue([HTTPRequest]())

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
    }

    /// `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// Every request it received, in order.
    public var requests: [HTTPRequest] { received.withLock { $0 } }

    /// Starts the origin on a free port; ``stop()`` ends it.
    public static func start(clock: any StashClock) async throws -> AccountOrigin {
        let holder = LockedValue<AccountOrigin?>(nil)
        let server = try await LoopbackServer.start(label: "account-origin") { request, writer, _ in
            for try await _ in request.body {}
            holder.withLock { $0 }?.received.withLock { $0.append(request.head) }
            let (response, body) = answer(request.head, now: clock.now)
            try await writer.write(response: response, body: ResponseBody(byteBuffer: ByteBuffer(string: request.head.method == .head ? "" : body)))
        }
        let origin = AccountOrigin(port: server.port, task: server.task)
        holder.withLock { $0 = origin }
        return origin
    }

    /// Stops the server.
    public func stop() { task.cancel() }

    private static func answer(_ request: HTTPRequest, now: Date) -> (HTTPResponse, String) {
        var fields = HTTPFields()
        fields[.date] = formatted(now)
        fields[.eTag] = "\"v1\""
        guard request.headerFields[.authorization] != nil else {
            fields[.cacheControl] = "max-age=5"
            fields[.contentLength] = "6"
            return (HTTPResponse(status: .ok, headerFields: fields), "shared")
        }
        fields[.cacheControl] = "private, max-age=86400"
        fields[HTTPField.Name("X-Account")!] = "alice"
        if request.headerFields[.ifNoneMatch] == "\"v1\"" { return (HTTPResponse(status: .notModified, headerFields: fields), "") }
        fields[.contentLength] = "6"
        return (HTTPResponse(status: .ok, headerFields: fields), "alice!")
    }

    /// An HTTP date (RFC 9110 §5.6.7).
    private static func formatted(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
