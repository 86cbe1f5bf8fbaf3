import NIOCore
import NIOEmbedded
import NIOHTTP1

/// NIO's HTTP/1 request decoder (`ByteToMessageHandler(HTTPRequestDecoder())`, as
/// HummingbirdCore installs it) on an `EmbeddedChannel`, fed one piece of a connection's
/// bytes at a time, as a socket would hand them over. Not thread-safe: one per comparison.
final class DecoderFeed {
    private let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))

    /// Closes the channel: its pipeline and the channel hold each other until then, so a feed
    /// left open would keep both (a fuzzer, making one per input, would run out of memory).
    deinit {
        _ = try? channel.finish()
    }

    /// What the decoder made of a piece: the request parts it read, and whether it then
    /// refused the bytes (a decoder error: NIO's server answers `400` and closes the
    /// connection). Parts read before a refusal are kept.
    struct Reading {
        var parts: [HTTPServerRequestPart] = []
        var refused = false

        /// Whether ``parts`` hold a request head.
        var holdsHead: Bool { parts.contains { if case .head = $0 { true } else { false } } }
    }

    /// What NIO's decoder reads once `bytes` arrive after the pieces before them.
    func feed(_ bytes: ByteBuffer) -> Reading {
        var reading = Reading()
        do {
            try channel.writeInbound(bytes)
        } catch {
            reading.refused = true
        }
        while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) { reading.parts.append(part) }
        return reading
    }
}
