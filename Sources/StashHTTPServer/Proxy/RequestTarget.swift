/// Checks on the request target a client sends, before anything is forwarded.
enum RequestTarget {
    /// Whether the path of `target` (the part before `?`) holds a dot segment, `.` or `..`,
    /// literally or percent-encoded (`%2e`), with `/`, `\` or their encodings (`%2f`, `%5c`)
    /// as separators. Such targets are refused with `400`, as nginx does: forwarding them
    /// would let a client climb out of the proxied prefix at an origin that resolves them.
    static func hasDotSegment(_ target: String) -> Bool {
        var target = target
        return target.withUTF8 { utf8 in
            let end = utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.count
            return hasDotSegment(path: UnsafeBufferPointer(rebasing: utf8[..<end]))
        }
    }

    private static func hasDotSegment(path bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Nearly every path has neither a dot nor an escape: nothing to decode.
        guard bytes.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "%") }) else { return false }
        var dots = 0
        var length = 0
        var index = 0
        while index <= bytes.count {
            var byte = index < bytes.count ? bytes[index] : UInt8(ascii: "/")
            var width = 1
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let decoded = decodedSpecial(bytes[index + 1], bytes[index + 2]) {
                byte = decoded
                width = 3
            }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") {
                if length > 0, dots == length, dots <= 2 { return true }
                dots = 0
                length = 0
            } else {
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
            index += width
        }
        return false
    }

    /// The byte a `%XY` escape stands for when it is `.`, `/` or `\`.
    private static func decodedSpecial(_ high: UInt8, _ low: UInt8) -> UInt8? {
        switch (high, low | 0x20) {
        case (UInt8(ascii: "2"), UInt8(ascii: "e")): return UInt8(ascii: ".")
        case (UInt8(ascii: "2"), UInt8(ascii: "f")): return UInt8(ascii: "/")
        case (UInt8(ascii: "5"), UInt8(ascii: "c")): return UInt8(ascii: "\\")
        default: return nil
        }
    }
}
