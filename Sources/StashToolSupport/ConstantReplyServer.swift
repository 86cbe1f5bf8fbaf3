import Foundation // the C library's socket and poll calls
import StashCore

/// The floor of the benchmark's proxy cases: a loopback server that answers every request
/// head it reads (each `\r\n\r\n`, as wrk and every client end a head; HTTP's bare line
/// feeds are not looked for) with the same prepared bytes, from one `poll` loop on one
/// thread. It parses nothing and looks nothing up, so a server on one CPU can hardly answer
/// the same client faster: its throughput is about the most the load generator and the
/// machine allow, and its latency about the least. (On more server CPUs than one, a server
/// with a thread per CPU may pass it.)
///
/// Not an HTTP server: a request body, a method or a field makes no difference, and nothing
/// is checked. It keeps a count of unsent bytes per connection, and a client that does not
/// read what it is sent stops being read from, so a flood of requests costs it nothing more.
/// Writes to a client that has gone fail with `EPIPE`, never `SIGPIPE`. It runs until
/// ``stop()``, whether or not anything still refers to it; it keeps nothing on disk, so a
/// crash leaves nothing behind but the port, free again.
///
/// Thread-safe: its state belongs to its own thread, and ``stop()`` may be called from any
/// thread, any number of times.
///
/// ```swift
/// let server = try ConstantReplyServer(reply: Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))
/// defer { server.stop() }
/// // connect to 127.0.0.1:server.port
/// ```
package final class ConstantReplyServer: @unchecked Sendable {  // the loop's state is its thread's
    /// The port it listens on, on 127.0.0.1.
    package let port: Int

    private let listener: Int32
    /// A pipe: ``stop()`` writes to its end 1, and the loop returns when end 0 is readable.
    private let wakeUp: (Int32, Int32)
    private let reply: [UInt8]
    private let finished = DispatchSemaphore(value: 0)
    /// Whether ``stop()`` was called, under its lock.
    private let stopping = LockedValue(false)

    /// What the loop polls: the wake-up pipe, the listener, then the connections, each for
    /// reading or, while replies wait to be written, for writing (and not read from).
    private var polled: [pollfd] = []
    /// Per connection, in `polled`'s order from index 2: how much of the head's end
    /// (`\r\n\r\n`) the bytes read so far end with, and how many bytes of replies are still
    /// to be written.
    private var matched: [Int] = []
    private var unsent: [Int] = []

    /// Listens on a free loopback port (or `port`) and answers from a thread of its own
    /// until ``stop()``.
    ///
    /// - throws: ``/StashCore/StashError/Code/io`` when the port cannot be listened on.
    package init(reply: [UInt8], port: Int = 0) throws {
        self.reply = reply
        listener = LoopbackSocket.open()
        guard listener >= 0, let bound = LoopbackSocket.bind(listener, port: port), listen(listener, 4096) == 0 else {
            let code = errno
            if listener >= 0 { close(listener) }
            throw StashError(.io, "the constant-reply server cannot listen on 127.0.0.1:\(port) (errno \(code))")
        }
        self.port = bound
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(listener)
            throw StashError(.io, "the constant-reply server cannot create its wake-up pipe (errno \(errno))")
        }
        wakeUp = (ends[0], ends[1])
        [listener, wakeUp.0, wakeUp.1].forEach(Self.prepare)
        polled = [pollfd(fd: wakeUp.0, events: Int16(POLLIN), revents: 0), pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
        let loop = Thread { [self] in
            run()
            finished.signal()
        }
        loop.name = "constant-reply"
        loop.start()
    }

    /// Stops answering and closes every connection; returns once the loop has ended. Calls
    /// after the first return at once.
    package func stop() {
        guard stopping.withLock({ stopped in defer { stopped = true }; return !stopped }) else { return }
        var byte: UInt8 = 1
        _ = write(wakeUp.1, &byte, 1)
        finished.wait()
        close(wakeUp.0)
        close(wakeUp.1)
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            if poll(&polled, nfds_t(polled.count), -1) < 0 {
                // Otherwise `poll` fails only for a bad argument (or no memory for its table).
                if errno == EINTR || errno == EAGAIN { continue }
                break
            }
            if polled[0].revents != 0 { break }
            let accepting = polled[1].revents != 0
            // Backwards, so that a connection dropped (swapped with the last) is not skipped.
            for index in stride(from: polled.count - 1, through: 2, by: -1) where polled[index].revents != 0 {
                let events = Int32(polled[index].revents)
                if events & Int32(POLLERR | POLLHUP | POLLNVAL) != 0 {
                    drop(at: index)
                } else if events & Int32(POLLOUT) != 0 {
                    send(at: index)
                } else {
                    receive(at: index, into: &buffer)
                }
            }
            if accepting { accept() }
        }
        for entry in polled.dropFirst(2) { close(entry.fd) }
        close(listener)
    }

    private func accept() {
        while true {
            let fd = Foundation.accept(listener, nil, nil)
            guard fd >= 0 else {
                // Out of descriptors, the listener stays readable: stop polling it until a
                // connection closes, rather than spin.
                if errno == EMFILE || errno == ENFILE { polled[1].events = 0 }
                return
            }
            Self.prepare(fd)
            LoopbackSocket.refuseBrokenPipeSignal(fd)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            polled.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
            matched.append(0)
            unsent.append(0)
        }
    }

    /// Reads what the connection at `index` sent and answers each head it completes.
    private func receive(at index: Int, into buffer: inout [UInt8]) {
        let count = buffer.withUnsafeMutableBytes { read(polled[index].fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EAGAIN || errno == EINTR { return }
        guard count > 0 else { return drop(at: index) }
        var state = matched[index - 2]
        var heads = 0
        for byte in buffer.prefix(count) {
            state = Self.headEnd(after: state, byte)
            if state == 4 {
                heads += 1
                state = 0
            }
        }
        matched[index - 2] = state
        guard heads > 0 else { return }
        unsent[index - 2] += heads * reply.count
        send(at: index)
    }

    /// How much of `\r\n\r\n` the bytes read end with, after `byte`, when they ended with
    /// `state` of it.
    private static func headEnd(after state: Int, _ byte: UInt8) -> Int {
        switch (state, byte) {
        case (0, 13), (2, 13): return state + 1
        case (1, 10), (3, 10): return state + 1
        case (_, 13): return 1
        default: return 0
        }
    }

    /// Writes what the connection at `index` is owed until its socket takes no more; then it
    /// waits to be writable, not read from, until all is sent.
    private func send(at index: Int) {
        let fd = polled[index].fd
        var remaining = unsent[index - 2]
        while remaining > 0 {
            // The replies go one after another: the unsent bytes start inside one of them.
            let offset = (reply.count - remaining % reply.count) % reply.count
            let written = reply.withUnsafeBytes { LoopbackSocket.send(fd, $0.baseAddress! + offset, reply.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                return drop(at: index)
            }
            remaining -= written
        }
        unsent[index - 2] = remaining
        polled[index].events = Int16(remaining > 0 ? POLLOUT : POLLIN)
    }

    /// Closes the connection at `index`; the last takes its place, and the listener is polled
    /// again.
    private func drop(at index: Int) {
        close(polled[index].fd)
        polled[1].events = Int16(POLLIN)
        polled.swapAt(index, polled.count - 1)
        matched.swapAt(index - 2, matched.count - 1)
        unsent.swapAt(index - 2, unsent.count - 1)
        polled.removeLast()
        matched.removeLast()
        unsent.removeLast()
    }

    /// Non-blocking, and closed on `exec` like every descriptor the package opens.
    private static func prepare(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
    }
}
