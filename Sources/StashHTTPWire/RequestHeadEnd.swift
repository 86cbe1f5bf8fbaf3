package import NIOCore

/// Finds the empty line that ends a request head in bytes that arrive in pieces, looking at
/// each byte once however the head is split: the state carried from one piece to the next is
/// two flags.
///
/// It accepts what NIO's HTTP/1 decoder accepts as line ends (CRLF or a bare LF), skips the
/// empty lines the decoder skips before a request line (so a client cannot stop the header
/// clock with a blank line and then send its head as slowly as it likes), and remembers
/// whether every line so far ended in CRLF, which ``PlainRequestHead`` requires.
/// A value type; each connection's handler keeps its own.
package struct RequestHeadEnd {
    /// Whether every line end seen since the last head ended was CRLF.
    package private(set) var isStrict = true
    /// Whether the last byte was CR.
    private var afterCR = false
    /// Whether the bytes since the last line end are at most one CR (the next LF ends the head).
    private var atLineStart = false
    /// Whether a byte other than CR or LF was seen: only then does an empty line end a head.
    private var sawContent = false

    /// The state before a head's first byte.
    package init() {}

    /// Whether a head ends in `bytes`. A piece that starts with a request line's byte (or
    /// follows one) and ends with the blank line (nearly every head, arriving whole) holds an
    /// end whatever lies between, so only the others are scanned; either way the state starts
    /// again, for the next head, once an end is found.
    package mutating func holdsEnd(in bytes: ByteBufferView) -> Bool {
        let end = bytes.endIndex
        if bytes.count >= 4, sawContent || Self.isContent(bytes[bytes.startIndex]),
           bytes[end - 4] == UInt8(ascii: "\r"), bytes[end - 3] == UInt8(ascii: "\n"),
           bytes[end - 2] == UInt8(ascii: "\r"), bytes[end - 1] == UInt8(ascii: "\n") {
            self = RequestHeadEnd()
            return true
        }
        return find(in: bytes) != nil
    }

    /// The offset in `bytes` just past the end of the head, or `nil` when the head goes on
    /// past them. After an end is found the state starts again, for the next head.
    package mutating func find<Bytes: Sequence<UInt8>>(in bytes: Bytes) -> Int? {
        var offset = 0
        for byte in bytes {
            offset += 1
            switch byte {
            case UInt8(ascii: "\n"):
                if !afterCR { isStrict = false }
                if atLineStart, sawContent {
                    self = RequestHeadEnd()
                    return offset
                }
                atLineStart = true
                afterCR = false
            case UInt8(ascii: "\r"):
                // A CR keeps a line start only as the first byte after a line end.
                if afterCR { atLineStart = false }
                afterCR = true
            default:
                atLineStart = false
                afterCR = false
                sawContent = true
            }
        }
        return nil
    }

    private static func isContent(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: "\r") && byte != UInt8(ascii: "\n")
    }
}
