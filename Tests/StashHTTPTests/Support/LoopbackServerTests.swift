import HTTPTypes
import HummingbirdCore
import StashHTTPTestSupport
import StashTestSupport
import Testing

/// The server the test origins run on starts, answers, and fails loudly.
struct LoopbackServerTests {
    /// A server that cannot listen (its port is taken) throws, where it once waited forever
    /// for a port and then reported port 0.
    @Test func aServerThatCannotListenThrowsInsteadOfHanging() async throws {
        let first = try await LoopbackServer.start(label: "first") { _, writer, _ in
            try await writer.write(response: HTTPResponse(status: .noContent), body: ResponseBody())
        }
        defer { first.task.cancel() }
        #expect(first.port > 0)
        let answer = try await RawClient.exchange(port: first.port, method: "GET", path: "/", host: "127.0.0.1")
        #expect(answer.status == 204)
        await #expect(throws: (any Error).self) {
            let second = try await LoopbackServer.start(label: "second", port: first.port) { _, _, _ in }
            second.task.cancel()
        }
    }
}
