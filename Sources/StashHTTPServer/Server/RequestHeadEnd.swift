/// Finds the empty line that ends a request head in bytes that arrive in pieces, looking at
/// each byte once however the head is split: the state carried from one piece to the next is
/// two flags.
///
/// It accepts what NIO's HTTP/1 decoder accepts as line ends (CRLF or a bare LF) and
/// remembers whether every line so far ended in CRLF, which ``PlainRequestHead`` requires.
/// A value type; each connection's handler keeps its own.
struct RequestHeadEnd {
    /// Whether every line end seen since the last head ended was CRLF.
    private(set) var isStrict = true
    /// Whether the last byte was CR.
    private var afterCR = false
    /// Whether the bytes since the last line end are at most one CR (the next LF ends the head).
    private var atLineStart = false

    /// The offset in `bytes` just past the end of the head, or `nil` when the head goes on
    /// past them. After an end is found the state starts again, for the next head.
    mutating func find<Bytes: Sequence<UInt8>>(in bytes: Bytes) -> Int? {
        var offset = 0
        for byte in bytes {
            offset += 1
            switch byte {
            case UInt8(ascii: "\n"):
                if !afterCR { isStrict = false }
                if atLineStart {
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
            }
        }
        return nil
    }
}
