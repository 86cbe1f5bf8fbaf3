import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import StashCore
import StashHTTPTestSupport
@testable import StashHTTP

/// A real HTTP origin on 127.0.0.1 whose answers the test sets, and which records every
/// request it receives. Built on HummingbirdCore directly so that it sends exactly the
/// `Date` the test chooses.
final class TestOrigin: Sendable {
    struct Reply: Sendable {
        var status = 200
        var fields: [(String, String)] = []
        var body = "hello"
        /// Close the connection instead of answering.
        var disconnect = false
        /// Milliseconds to wait before answering, so concurrent requests overlap.
        var delay = 0
    }

    private let replies = LockedValue([String: Reply]())
    private let received = LockedValue([String: [HTTPRequest]]())
    private let bodySizes = LockedValue([String: [Int]]())
    private let clock: any StashClock
    private let task: LockedValue<Task<Void, any Error>?> = LockedValue(nil)
    let port: Int

    private init(clock: any StashClock, port: Int) {
        self.clock = clock
        self.port = port
    }

    /// Starts an origin on a free port; `stop()` ends it.
    static func start(clock: any StashClock) async throws -> TestOrigin {
        let holder = LockedValue<TestOrigin?>(nil)
        let server = try await LoopbackServer.start(label: "test-origin") { request, writer, channel in
            guard let origin = holder.withLock({ $0 }) else { return }
            var bodySize = 0
            for try await part in request.body { bodySize += part.readableBytes }
            // The delay comes before recording so that a request still in flight (a
            // background revalidation) is not yet counted.
            let pending = origin.reply(for: request.head)
            if pending.delay > 0 { try await Task.sleep(for: .milliseconds(pending.delay)) }
            let reply = origin.record(request.head, bodySize: bodySize)
            if reply.disconnect {
                channel.close(promise: nil)
                return
            }
            var fields = HTTPFields()
            for (name, value) in reply.fields {
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            if fields[.date] == nil { fields[.date] = HTTPDate.format(origin.clock.now) }
            let body = request.head.method == .head || reply.status == 304 || reply.status == 204 ? "" : reply.body
            if reply.status != 304, reply.status != 204 { fields[.contentLength] = String(reply.body.utf8.count) }
            try await writer.write(
                response: HTTPResponse(status: .init(code: reply.status), headerFields: fields),
                body: ResponseBody(byteBuffer: ByteBuffer(string: body))
            )
        }
        let origin = TestOrigin(clock: clock, port: server.port)
        holder.withLock { $0 = origin }
        origin.task.withLock { $0 = server.task }
        return origin
    }

    func stop() { task.withLock { $0?.cancel() } }

    var base: String { "http://127.0.0.1:\(port)" }

    /// Sets what `path` answers from now on.
    func set(_ path: String, _ reply: Reply) { replies.withLock { $0[path] = reply } }

    /// The requests `path` has received.
    func requests(_ path: String) -> [HTTPRequest] { received.withLock { $0[path] ?? [] } }

    /// How many bytes of body each request for `path` carried.
    func bodySizes(_ path: String) -> [Int] { bodySizes.withLock { $0[path] ?? [] } }

    /// Every request received, whatever its path.
    var allRequests: [HTTPRequest] { received.withLock { $0.values.flatMap { $0 } } }

    private static func path(of request: HTTPRequest) -> String {
        request.path.map { String($0.split(separator: "?", maxSplits: 1)[0]) } ?? "/"
    }

    private func reply(for request: HTTPRequest) -> Reply {
        replies.withLock { $0[Self.path(of: request)] } ?? Reply(status: 404, body: "no reply set")
    }

    private func record(_ request: HTTPRequest, bodySize: Int) -> Reply {
        received.withLock { $0[Self.path(of: request), default: []].append(request) }
        bodySizes.withLock { $0[Self.path(of: request), default: []].append(bodySize) }
        return reply(for: request)
    }
}
