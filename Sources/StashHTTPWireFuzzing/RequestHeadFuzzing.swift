package import NIOCore
import NIOHTTP1
package import StashHTTPWire

/// The differential fuzz target of the proxy's raw hit path: the strict reading of request
/// heads that answers fresh hits before NIO's HTTP/1 decoder (``StashHTTPWire/PlainRequestHead``)
/// against that decoder itself, on the same bytes.
///
/// The bytes are read as a connection's ``RawHitHandler`` reads them: one head after another
/// while each is a plain request (`.request`), each answered and skipped; the first that is
/// not (`.other`) goes, with everything after it, to the decoder, which then answers it
/// (whatever it makes of it is its own reading, not compared). The decoder is fed the same
/// stream, so a divergence is:
/// - a head read here that the decoder refuses, reads differently (method, target, version,
///   first `Host`, kept fields, `Authorization`; ``divergence(between:and:)``), or reads with
///   a body, or ends at another byte (where the next request starts);
/// - `.incomplete` (the raw path waits for more bytes) for bytes in which the decoder finds
///   a whole head: the client waits for an answer that never comes;
/// - bytes in which the decoder finds a head while ``StashHTTPWire/RequestHeadEnd``, which
///   runs the header clock and watches a split head arrive, finds no end.
///
/// `.other` for a head the decoder accepts is no divergence: the full flow answers it.
///
/// ```swift
/// @_cdecl("LLVMFuzzerTestOneInput")
/// func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
///     RequestHeadFuzzing.run(UnsafeRawBufferPointer(start: data, count: count))
///     return 0
/// }
/// ```
package enum RequestHeadFuzzing {
    /// Compares the two readings of `bytes` and stops the process on a divergence (that is
    /// how libFuzzer is told: the input is saved as a crash).
    package static func run(_ bytes: UnsafeRawBufferPointer) {
        if let divergence = divergence(in: bytes) {
            fatalError("PlainRequestHead and NIO's decoder disagree: \(divergence)")
        }
    }

    /// The first divergence between the raw path's reading of `bytes`, a connection's
    /// first bytes, and NIO's decoder's, or `nil` when they agree.
    ///
    /// - parameters:
    ///   - bytes: What the client sent first.
    ///   - read: The raw path's reader: ``StashHTTPWire/PlainRequestHead/read(_:)``, or, in
    ///     the tests that show a divergence is caught, one that reads wrongly on purpose.
    package static func divergence(
        in bytes: UnsafeRawBufferPointer, reading read: (ByteBuffer) -> PlainRequestHead.Reading = PlainRequestHead.read
    ) -> String? {
        let stream = ByteBuffer(bytes: bytes)
        return divergence(inHeads: stream, reading: read) ?? divergence(inHeadEnd: stream)
    }

    /// The raw path's heads, one after another, against the decoder fed the same stream.
    private static func divergence(inHeads stream: ByteBuffer, reading read: (ByteBuffer) -> PlainRequestHead.Reading) -> String? {
        let decoder = DecoderFeed()
        var rest = stream
        var index = 0
        while rest.readableBytes > 0 {
            switch read(rest) {
            case .other:
                return nil
            case .incomplete:
                // The raw path holds these bytes and waits for the rest of the head.
                let reading = decoder.feed(rest)
                return reading.holdsHead ? "request \(index): incomplete, but NIO reads a whole head: \(reading.parts)" : nil
            case .request(let request, let length):
                guard (1...rest.readableBytes).contains(length) else { return "request \(index): length \(length) of \(rest.readableBytes) bytes" }
                // The head may not end, for the decoder, before its last byte, nor go on past it.
                let early = decoder.feed(rest.getSlice(at: rest.readerIndex, length: length - 1)!)
                guard !early.refused else { return "request \(index): read, but NIO refuses its first \(length - 1) bytes" }
                guard early.parts.isEmpty else { return "request \(index): \(length) bytes long, but NIO reads it from fewer: \(early.parts)" }
                let last = decoder.feed(rest.getSlice(at: rest.readerIndex + length - 1, length: 1)!)
                guard !last.refused else { return "request \(index): read, but NIO refuses it" }
                guard last.parts.count == 2, case .head(let head) = last.parts[0], case .end(nil) = last.parts[1] else {
                    return "request \(index): \(length) bytes long without a body, but NIO reads \(last.parts)"
                }
                if let divergence = divergence(between: request, and: head) { return "request \(index): \(divergence)" }
                rest.moveReaderIndex(forwardBy: length)
                index += 1
            }
        }
        return nil
    }

    /// A head NIO's decoder finds in `stream` must have an end for ``StashHTTPWire/RequestHeadEnd``,
    /// or a split head would be held until the header clock ran out.
    private static func divergence(inHeadEnd stream: ByteBuffer) -> String? {
        let reading = DecoderFeed().feed(stream)
        guard reading.holdsHead else { return nil }
        var end = RequestHeadEnd()
        return end.find(in: stream.readableBytesView) == nil ? "NIO reads a head (\(reading.parts)), but RequestHeadEnd finds no end" : nil
    }
}
