#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import StashToolSupport
import Testing

/// The loopback sockets of the benchmark and the tests.
struct LoopbackSocketTests {
    /// A stream socket is closed on `exec`: a child process (nginx, a test host) started
    /// while it is open does not inherit it and keep a port bound or a peer waiting.
    @Test func aStreamSocketIsClosedOnExec() throws {
        let fd = LoopbackSocket.open()
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
    }

    /// Port 0 binds to a free port, which a second socket then connects to.
    @Test func bindsAFreePortThatAnotherSocketConnectsTo() throws {
        let listener = LoopbackSocket.open()
        try #require(listener >= 0)
        defer { close(listener) }
        let port = try #require(LoopbackSocket.bind(listener))
        #expect(port != 0)
        try #require(listen(listener, 1) == 0)
        let client = LoopbackSocket.open()
        defer { close(client) }
        #expect(LoopbackSocket.connect(client, port: port))
    }

    @Test func answersAFreePort() throws {
        let port = try #require(LoopbackSocket.freePort())
        #expect((1...65_535).contains(port))
    }
}
