import StashToolSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The socket calls RawClient and RawOrigin make, with the flags each system spells
// differently: Glibc imports `SOCK_STREAM` as an enum case and has `MSG_NOSIGNAL`; Darwin
// has a plain `Int32` and no `MSG_NOSIGNAL` (the socket itself says `SO_NOSIGPIPE`). Named
// apart from `socket`/`send` so that a class's `socket` property does not hide them.

/// A new IPv4 stream socket whose writes to a closed peer fail with `EPIPE` instead of
/// raising `SIGPIPE`.
func openStreamSocket() -> Int32 {
    let descriptor = LoopbackSocket.open()
    refuseBrokenPipeSignal(descriptor)
    return descriptor
}

/// Makes writes on `descriptor` (an accepted connection, say) fail with `EPIPE` rather
/// than raise `SIGPIPE` where the system needs a socket option for it; on Linux
/// ``sendBytes(_:_:_:)`` says so per call.
func refuseBrokenPipeSignal(_ descriptor: Int32) {
    #if !canImport(Glibc)
    var on: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
}

/// `send` without `SIGPIPE` when the peer has gone.
func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    return send(descriptor, bytes, count, 0)
    #endif
}
