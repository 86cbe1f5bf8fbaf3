import Foundation
import StashToolSupport
import Testing

/// The benchmark's floor server (``ConstantReplyServer``): one reply per request head, in
/// order, whatever the reads the heads arrive in, and all of a reply larger than the socket
/// takes at once.
struct ConstantReplyServerTests {
    /// One reply per `\r\n\r\n`, however the bytes are split between reads.
    @Test func answersEveryHeadOnceWhateverTheReadsItArrivesIn() throws {
        let reply = Array("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello".utf8)
        let server = try ConstantReplyServer(reply: reply)
        defer { server.stop() }
        let client = try Self.connect(to: server.port)
        defer { close(client) }
        // A head split in the middle of its end, then two heads in one write.
        try Self.send("GET /a HTTP/1.1\r\nhost: x\r\n\r", to: client)
        usleep(20_000)
        try Self.send("\nGET /b HTTP/1.1\r\n\r\nGET /c HTTP/1.1\r\n\r\n", to: client)
        // And a head whose end follows a stray CR.
        try Self.send("GET /c HTTP/1.1\r\nx: y\r\r\n\r\n", to: client)
        let received = try Self.receive(reply.count * 4, from: client)
        #expect(received == reply + reply + reply + reply)
        // A head not yet whole is not answered.
        try Self.send("GET /e HTTP/1.1\r\n", to: client)
        #expect(try Self.receive(1, from: client, seconds: 0.2).isEmpty)
    }

    /// Two replies of 8 MB each, asked for at once: far more than the socket takes at a time,
    /// so each goes in pieces, and every byte arrives once, in order.
    @Test func writesALargeReplyWholeAcrossPartialWrites() throws {
        let reply = (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }
        let server = try ConstantReplyServer(reply: reply)
        defer { server.stop() }
        let client = try Self.connect(to: server.port)
        defer { close(client) }
        try Self.send("GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n", to: client)
        let received = try Self.receive(reply.count * 2, from: client, seconds: 30)
        #expect(received.count == reply.count * 2)
        // Compared first: a failed `#expect` on the arrays would print 32 MB.
        let intact = received == reply + reply
        #expect(intact)
    }

    /// A connection that closes gives its place in the server's tables to the last one
    /// opened, with what that one was owed: the half of a head's end it had sent, and the
    /// rest of a reply too large for its socket.
    @Test func aClosedConnectionsPlaceGoesToTheLastWithItsState() throws {
        let reply = (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        let server = try ConstantReplyServer(reply: reply)
        defer { server.stop() }
        let first = try Self.connect(to: server.port)
        let second = try Self.connect(to: server.port)
        let owed = try Self.connect(to: server.port)
        defer { close(owed) }
        let halfway = try Self.connect(to: server.port)
        defer { close(halfway) }
        // `owed` asks for a reply its socket cannot take at once; `halfway` sends a head
        // up to its last byte.
        try Self.send("GET / HTTP/1.1\r\n\r\n", to: owed)
        try Self.send("GET / HTTP/1.1\r\n\r", to: halfway)
        usleep(200_000)
        // The first closes, and `halfway`, the last, takes its place; then the second, and
        // `owed`, now the last, takes its.
        close(first)
        usleep(200_000)
        close(second)
        usleep(200_000)
        try Self.send("\n", to: halfway)
        let halfwayReceived = try Self.receive(reply.count, from: halfway, seconds: 30)
        let owedReceived = try Self.receive(reply.count, from: owed, seconds: 30)
        let intact = halfwayReceived == reply && owedReceived == reply
        #expect(halfwayReceived.count == reply.count)
        #expect(owedReceived.count == reply.count)
        #expect(intact)
        // And nothing more.
        #expect(try Self.receive(1, from: halfway, seconds: 0.2).isEmpty)
        #expect(try Self.receive(1, from: owed, seconds: 0.2).isEmpty)
    }

    /// ``ConstantReplyServer/stop()`` closes what is open: the client reads the end, and a
    /// second call returns at once.
    @Test func stoppingClosesItsConnections() throws {
        let server = try ConstantReplyServer(reply: Array("x".utf8))
        let client = try Self.connect(to: server.port)
        defer { close(client) }
        try Self.send("GET / HTTP/1.1\r\n\r\n", to: client)
        #expect(try Self.receive(1, from: client) == Array("x".utf8))
        server.stop()
        var byte: UInt8 = 0
        #expect(read(client, &byte, 1) == 0)
        server.stop()
    }

    private static func connect(to port: Int) throws -> Int32 {
        let fd = LoopbackSocket.open()
        try #require(fd >= 0)
        guard LoopbackSocket.connect(fd, port: port) else {
            close(fd)
            throw ConnectFailure()
        }
        return fd
    }

    private static func send(_ text: String, to fd: Int32) throws {
        let bytes = Array(text.utf8)
        try #require(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// Up to `count` bytes, as many as arrive within `seconds`.
    private static func receive(_ count: Int, from fd: Int32, seconds: Double = 5) throws -> [UInt8] {
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(seconds)
        while received.count < count, Date() < deadline {
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, count - received.count)) }
            if got > 0 { received += chunk.prefix(got) } else if got == 0 { break }
        }
        return received
    }
}

private struct ConnectFailure: Error {}
