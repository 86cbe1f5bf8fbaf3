import Foundation // the C library's socket calls (Foundation re-exports Darwin, Glibc or Musl)

/// The IPv4 stream sockets on 127.0.0.1 that the benchmark's peers and the tests' raw
/// clients and origins open, bind and connect, without an `#if` or a `sockaddr` cast at
/// every call site.
///
/// ```swift
/// let fd = LoopbackSocket.open()
/// guard let port = LoopbackSocket.bind(fd), listen(fd, 8) == 0 else { throw failure }
/// ```
package enum LoopbackSocket {
    /// A new IPv4 stream socket (Glibc imports `SOCK_STREAM` as an enum case, Darwin as an
    /// `Int32`), closed on `exec` like every descriptor the package opens, so that a child
    /// process (nginx, a test host) does not keep a listener bound or a connection open,
    /// and whose writes to a peer that has gone fail with `EPIPE` rather than raise
    /// `SIGPIPE` (on Linux, write with ``send(_:_:_:)`` for that); the descriptor, or -1 with
    /// `errno` set.
    ///
    /// ```swift
    /// let fd = LoopbackSocket.open()
    /// ```
    package static func open() -> Int32 {
        #if canImport(Glibc)
        return socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #elseif canImport(Musl)
        return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC); refuseBrokenPipeSignal(fd) }
        return fd
        #endif
    }

    /// Makes writes on `fd` (an accepted connection, say) to a peer that has gone fail with
    /// `EPIPE` instead of raising `SIGPIPE`, where the system needs a socket option for that
    /// (Darwin's `SO_NOSIGPIPE`; sockets from ``open()`` have it); on Linux ``send(_:_:_:)``
    /// asks per call.
    ///
    /// ```swift
    /// LoopbackSocket.refuseBrokenPipeSignal(connection)
    /// ```
    package static func refuseBrokenPipeSignal(_ fd: Int32) {
        #if !canImport(Glibc) && !canImport(Musl)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Sends `count` bytes from `bytes` on `fd`, without `SIGPIPE` when the peer has gone:
    /// the count sent, or -1 with `errno` set (`EPIPE` then).
    ///
    /// ```swift
    /// let sent = bytes.withUnsafeBytes { LoopbackSocket.send(fd, $0.baseAddress, $0.count) }
    /// ```
    package static func send(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc) || canImport(Musl)
        return systemSend(fd, bytes, count, Int32(MSG_NOSIGNAL))
        #else
        return systemSend(fd, bytes, count, 0)
        #endif
    }

    /// Binds `fd` to 127.0.0.1:`port` (0: any free port) and answers the port it got, or
    /// `nil` with `errno` set.
    ///
    /// ```swift
    /// let port = LoopbackSocket.bind(fd)
    /// ```
    package static func bind(_ fd: Int32, port: Int = 0) -> Int? {
        var address = Self.address(port: port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let size = length
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemBind(fd, $0, size) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// Connects `fd` to 127.0.0.1:`port`; `false` with `errno` set when it cannot.
    ///
    /// ```swift
    /// let connected = LoopbackSocket.connect(fd, port: 8080)
    /// ```
    package static func connect(_ fd: Int32, port: Int) -> Bool {
        var address = Self.address(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A loopback port free right now (a socket bound to port 0, read back and closed), or
    /// `nil` when no socket could be bound.
    ///
    /// ```swift
    /// let port = LoopbackSocket.freePort()
    /// ```
    package static func freePort() -> Int? {
        let fd = open()
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return bind(fd)
    }

    /// 127.0.0.1:`port` as a socket address.
    static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}

// The C library's `bind`, `connect` and `send`, named apart from the methods above.
private func systemBind(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 { bind(fd, address, length) }
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 { connect(fd, address, length) }
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int { send(fd, bytes, count, flags) }
