import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import StashCore
import StashHTTPTestSupport
import StashTestSupport

/// An origin on 127.0.0.1 that sends large bodies made from a seeded pattern (cheap to make
/// and to check, never held whole), in 64 KiB blocks, and can pause part way until the test
/// lets it go on, or close the connection part way.
final class PatternOrigin: Sendable {
    /// What one path answers.
    struct Reply: Sendable {
        var size: Int
        var cacheControl = "max-age=600"
        /// Announce the length (`Content-Length`), or send the body chunked.
        var announcesLength = true
        /// After this many bytes, wait until ``PatternOrigin/release()`` (or ``PatternOrigin/stop()``).
        var pauseAfter: Int?
        /// After this many bytes, close the connection.
        var cutAfter: Int?
    }

    static let blockSize = 64 << 10

    let seed: UInt64
    let port: Int
    private let replies = LockedValue([String: Reply]())
    private let received = LockedValue([String: Int]())
    private let abandoned = LockedValue([String: Int]())
    /// Whether paused bodies may go on, and the bodies waiting for it.
    private let gate = LockedValue((released: false, waiting: [CheckedContinuation<Void, Never>]()))
    /// Whether a paused body has been let go on; read by tests to see what arrived first.
    var isReleased: Bool { gate.withLock { $0.released } }
    private let task: LockedValue<Task<Void, any Error>?> = LockedValue(nil)

    private init(seed: UInt64, port: Int) {
        self.seed = seed
        self.port = port
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func set(_ path: String, _ reply: Reply) { replies.withLock { $0[path] = reply } }

    /// How many requests `path` has received.
    func requests(_ path: String) -> Int { received.withLock { $0[path] ?? 0 } }

    /// How many bodies of `path` stopped before their end: the connection went away (the
    /// proxy gave up on them) or the reply cuts itself (`cutAfter`).
    func abandonedBodies(_ path: String) -> Int { abandoned.withLock { $0[path] ?? 0 } }

    /// Waits until a body of `path` has been abandoned, for at most `seconds`; whether one was.
    func waitUntilAbandoned(_ path: String, seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while abandonedBodies(path) == 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return abandonedBodies(path) > 0
    }

    /// Lets paused bodies go on: those waiting now and any that pause later.
    func release() {
        let waiting = gate.withLock { gate in
            gate.released = true
            defer { gate.waiting = [] }
            return gate.waiting
        }
        for body in waiting { body.resume() }
    }

    /// Lets paused bodies go on and stops the server.
    func stop() {
        release()
        task.withLock { $0?.cancel() }
    }

    /// Returns once ``release()`` has been called.
    private func paused() async {
        await withCheckedContinuation { (body: CheckedContinuation<Void, Never>) in
            let goOn = gate.withLock { gate in
                if !gate.released { gate.waiting.append(body) }
                return gate.released
            }
            if goOn { body.resume() }
        }
    }

    /// Block `index` of the pattern for `seed`.
    static func block(_ index: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed &+ UInt64(index))
        var bytes = [UInt8](repeating: 0, count: blockSize)
        bytes.withUnsafeMutableBytes { raw in
            for word in 0..<(blockSize / 8) { raw.storeBytes(of: generator.next(), toByteOffset: word * 8, as: UInt64.self) }
        }
        return bytes
    }

    /// Checks bytes against the pattern as they arrive.
    struct Checker {
        let seed: UInt64
        private(set) var count = 0
        private(set) var mismatchAt: Int?
        private var block: [UInt8] = []

        /// Checks bytes that start at `offset` of the pattern (a range).
        init(seed: UInt64, offset: Int = 0) {
            self.seed = seed
            count = offset
            if offset % PatternOrigin.blockSize != 0 { block = PatternOrigin.block(offset / PatternOrigin.blockSize, seed: seed) }
        }

        mutating func check(_ part: Data) {
            var rest = part[...]
            while !rest.isEmpty {
                let offset = count % PatternOrigin.blockSize
                if offset == 0 { block = PatternOrigin.block(count / PatternOrigin.blockSize, seed: seed) }
                let take = min(rest.count, PatternOrigin.blockSize - offset)
                let piece = rest.prefix(take)
                let same = piece.withUnsafeBytes { received in
                    block.withUnsafeBytes { expected in memcmp(received.baseAddress!, expected.baseAddress! + offset, take) == 0 }
                }
                if mismatchAt == nil, !same { mismatchAt = count }
                count += take
                rest = rest.dropFirst(take)
            }
        }
    }

    static func start(seed: UInt64) async throws -> PatternOrigin {
        let holder = LockedValue<PatternOrigin?>(nil)
        let server = try await LoopbackServer.start(label: "pattern-origin") { request, writer, channel in
            guard let origin = holder.withLock({ $0 }) else { return }
            for try await _ in request.body {}
            let path = request.head.path ?? "/"
            origin.received.withLock { $0[path, default: 0] += 1 }
            guard let reply = origin.replies.withLock({ $0[path] }) else {
                try await writer.write(response: HTTPResponse(status: .notFound, headerFields: [.contentLength: "0"]), body: ResponseBody())
                return
            }
            var fields: HTTPFields = [.cacheControl: reply.cacheControl, .contentType: "application/octet-stream"]
            if reply.announcesLength { fields[.contentLength] = String(reply.size) }
            let isHead = request.head.method == .head
            let body = ResponseBody(contentLength: reply.announcesLength ? reply.size : nil) { writer in
                do {
                    var sent = 0
                    var index = 0
                    while !isHead, sent < reply.size {
                        var block = PatternOrigin.block(index, seed: origin.seed)[...]
                        block = block.prefix(reply.size - sent)
                        if let cut = reply.cutAfter, sent + block.count > cut {
                            try await writer.write(ByteBuffer(bytes: block.prefix(cut - sent)))
                            channel.close(promise: nil)
                            throw ChannelError.ioOnClosedChannel
                        }
                        if let pause = reply.pauseAfter, sent < pause, sent + block.count >= pause {
                            try await writer.write(ByteBuffer(bytes: block))
                            sent += block.count
                            index += 1
                            await origin.paused()
                            continue
                        }
                        try await writer.write(ByteBuffer(bytes: block))
                        sent += block.count
                        index += 1
                    }
                    try await writer.finish(nil)
                } catch {
                    origin.abandoned.withLock { $0[path, default: 0] += 1 }
                    throw error
                }
            }
            try await writer.write(response: HTTPResponse(status: .ok, headerFields: fields), body: body)
        }
        let origin = PatternOrigin(seed: seed, port: server.port)
        holder.withLock { $0 = origin }
        origin.task.withLock { $0 = server.task }
        return origin
    }
}
