import StashCore
import StashToolSupport
import Testing

/// `ListeningServer.start`: the port once the server listens, and the server's own error,
/// never a wait for ever, when it stops before.
struct ListeningServerTests {
    @Test func answersThePortOnceTheServerListensAndKeepsItRunning() async throws {
        let server = try await ListeningServer.start("server") { listening in
            listening(4242)
            try await Task.sleep(for: .seconds(3600))
        }
        #expect(server.port == 4242)
        server.task.cancel()
        await #expect(throws: CancellationError.self) { try await server.task.value }
    }

    @Test func throwsTheErrorOfAServerThatFailsBeforeItListens() async throws {
        let error = await #expect(throws: StashError.self) {
            _ = try await ListeningServer.start("proxy") { _ in
                throw StashError(.permissionDenied, "bind(127.0.0.1:80) refused")
            }
        }
        #expect(error?.code == .permissionDenied)
    }

    @Test func throwsWhenAServerEndsWithoutListening() async throws {
        let error = await #expect(throws: StashError.self) {
            _ = try await ListeningServer.start("origin") { _ in }
        }
        #expect(error?.code == .io)
        #expect(error?.reason.contains("origin") == true)
    }

    @Test func cancellingTheCallerStopsAServerThatNeverListens() async throws {
        let stopped = LockedValue(false)
        let caller = Task {
            try await ListeningServer.start("server") { _ in
                do { try await Task.sleep(for: .seconds(3600)) } catch { stopped.withLock { $0 = true }; throw error }
            }
        }
        caller.cancel()
        await #expect(throws: CancellationError.self) { _ = try await caller.value }
        #expect(stopped.withLock { $0 })
    }
}
