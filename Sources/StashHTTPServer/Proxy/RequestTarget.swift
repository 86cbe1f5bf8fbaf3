/// Checks on the path of the request target a client sends, before anything is forwarded.
///
/// Origins disagree on how they read a path: Tomcat, Jetty and Spring drop a segment's path
/// parameters (`/..;x/` is `/../`), many decode escapes twice (`%252e` is `.`), some take
/// `\` for `/`, and C servers stop at a decoded NUL. A path any of them would read as
/// climbing out of the proxied prefix is refused with `400`, as nginx does; a path that
/// does not climb passes unchanged.
enum RequestTarget {
    /// Why the path of `target` (the part before `?`) is refused, or `nil` when it passes:
    /// - a dot segment, `.` or `..`, literal or percent-encoded (`%2e`), counting only what
    ///   precedes the segment's path parameters (`..;jsessionid=1`), with `/`, `\` or their
    ///   encodings (`%2f`, `%5c`) as separators;
    /// - an escape of an escape that stands for `.`, `/`, `\`, `;` or `%` (`%252e`,
    ///   `%252f`, `%2525`): no client needs it, and an origin that decodes twice climbs;
    /// - an encoded NUL (`%00`).
    ///
    /// ```swift
    /// RequestTarget.refusal("/app/..;/manager")  // "dot segment in the request target"
    /// RequestTarget.refusal("/a/b.c?x=/../")     // nil: the query is the origin's business
    /// ```
    static func refusal(_ target: String) -> String? {
        var target = target
        return target.withUTF8 { utf8 in
            let end = utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.count
            return refusal(path: UnsafeBufferPointer(rebasing: utf8[..<end]))
        }
    }

    private static func refusal(path bytes: UnsafeBufferPointer<UInt8>) -> String? {
        // Nearly every path has neither a dot nor an escape: nothing to decode.
        guard bytes.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "%") }) else { return nil }
        // Per segment: its length and dots before any `;`, and whether a `;` was seen.
        var dots = 0
        var length = 0
        var inParameters = false
        var index = 0
        while index <= bytes.count {
            var byte = index < bytes.count ? bytes[index] : UInt8(ascii: "/")
            var width = 1
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                byte = high << 4 | low
                width = 3
                if byte == 0 { return "an encoded NUL in the request target" }
                if byte == UInt8(ascii: "%"), index + 4 < bytes.count, let high = hexValue(bytes[index + 3]), let low = hexValue(bytes[index + 4]),
                   Self.special.contains(high << 4 | low) {
                    return "a doubly encoded dot, slash, semicolon or percent in the request target"
                }
            }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") {
                if length > 0, dots == length, dots <= 2 { return "dot segment in the request target" }
                dots = 0
                length = 0
                inParameters = false
            } else if byte == UInt8(ascii: ";") {
                inParameters = true
            } else if !inParameters {
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
            index += width
        }
        return nil
    }

    /// The bytes whose escape, escaped once more, is refused: `.`, `/`, `\`, `;` and `%`.
    private static let special: Set<UInt8> = [UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: ";"), UInt8(ascii: "%")]

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
