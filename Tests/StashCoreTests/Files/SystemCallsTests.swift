#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import StashCore
import Testing

/// The C calls the package reaches through `SystemCalls`.
struct SystemCallsTests {
    /// A stream socket is closed on `exec`: a child process (nginx, a test host) started
    /// while it is open does not inherit it and keep a port bound or a peer waiting.
    @Test func aStreamSocketIsClosedOnExec() throws {
        let fd = SystemCalls.streamSocket()
        try #require(fd >= 0)
        defer { SystemCalls.close(fd) }
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
    }

    /// The loopback address binds to 127.0.0.1 on a free port when asked for port 0.
    @Test func theLoopbackAddressBindsToLocalhost() throws {
        let fd = SystemCalls.streamSocket()
        try #require(fd >= 0)
        defer { SystemCalls.close(fd) }
        var address = SystemCalls.loopbackAddress()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let size = length
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        #expect(bound)
        #expect(address.sin_addr.s_addr == inet_addr("127.0.0.1"))
        #expect(address.sin_port != 0)
    }
}
