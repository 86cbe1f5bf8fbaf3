import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import StashCore
import StashHTTPTestSupport

/// A real HTTP origin on 127.0.0.1 that counts the requests it receives, for the tests of
/// HTTP caches on a shared cache. Every `GET` answer is fresh for 300 seconds and its body
/// names the path and how many times the origin served it (`/a #2`), so a test sees
/// whether an answer came from the origin or from the cache:
///
/// - `/vary…` varies on `Accept-Language` and puts the language in the body;
/// - `/aged…` carries `Age: 30`, as if an upstream cache had held it for 30 seconds;
/// - any other method answers `204` (so that a cache invalidates the target).
final class CountingOrigin: Sendable {
    private let counts = LockedValue([String: Int]())
    private let task: LockedValue<Task<Void, any Error>?> = LockedValue(nil)
    let port: Int

    private init(port: Int) { self.port = port }

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }

    /// How many `METHOD path` requests arrived (for example `"GET /a"`).
    func count(_ methodAndPath: String) -> Int { counts.withLock { $0[methodAndPath] ?? 0 } }

    /// Every request that arrived.
    var total: Int { counts.withLock { $0.values.reduce(0, +) } }

    /// Starts an origin on a free port; `stop()` ends it.
    static func start() async throws -> CountingOrigin {
        let holder = LockedValue<CountingOrigin?>(nil)
        let server = try await LoopbackServer.start(label: "counting-origin") { request, writer, _ in
            for try await _ in request.body {}
            guard let origin = holder.withLock({ $0 }) else { return }
            let (response, body) = origin.answer(request.head)
            try await writer.write(response: response, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        let origin = CountingOrigin(port: server.port)
        holder.withLock { $0 = origin }
        origin.task.withLock { $0 = server.task }
        return origin
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }

    private func answer(_ request: HTTPRequest) -> (HTTPResponse, String) {
        let path = request.path ?? "/"
        let served = counts.withLock { counts -> Int in
            counts["\(request.method.rawValue) \(path)", default: 0] += 1
            return counts["\(request.method.rawValue) \(path)"] ?? 0
        }
        var fields = HTTPFields()
        fields[.date] = Self.httpDate(Date())
        guard request.method == .get || request.method == .head else {
            return (HTTPResponse(status: .noContent, headerFields: fields), "")
        }
        var body = "\(path) #\(served)"
        fields[.cacheControl] = "max-age=300"
        if path.hasPrefix("/vary") {
            fields[.vary] = "Accept-Language"
            body += " " + (request.headerFields[.acceptLanguage] ?? "none")
        }
        if path.hasPrefix("/aged") { fields[.age] = "30" }
        fields[.contentLength] = String(body.utf8.count)
        return (HTTPResponse(status: .ok, headerFields: fields), request.method == .head ? "" : body)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
