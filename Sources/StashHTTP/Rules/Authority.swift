/// A URI authority as a `Host` field or an absolute-form request target carries it: a host
/// and an optional port, checked against RFC 3986 §3.2.2–3.2.3 (`IP-literal`, `IPv4address`
/// or `reg-name`, then `":" port`). No user information, no path, no space: `victim/a`,
/// `a@b`, `a?b`, `a b` and `a:99999` are not authorities.
///
/// ```swift
/// Authority("Example.com:8080")  // host "example.com", port 8080
/// Authority("[::1]")             // host "[::1]", no port
/// Authority("a@b")               // nil
/// ```
package struct Authority: Sendable, Hashable {
    /// The host, lowercased (host names are case-insensitive), brackets kept around an IP literal.
    package let host: String
    /// The port, when one is given (an empty port, `host:`, counts as none).
    package let port: Int?

    /// The authority `text` spells, or `nil` when it is not one.
    package init?(_ text: some StringProtocol) {
        var text = String(text)
        guard let parsed = text.withUTF8({ Self.parse(UnsafeRawBufferPointer($0)) }) else { return nil }
        host = parsed.host
        port = parsed.port
    }

    /// `host` or `host:port`, as a `Host` field spells it.
    package var field: String { port.map { "\(host):\($0)" } ?? host }

    /// Whether `bytes` spell an authority; allocates nothing (the hit path checks every `Host`).
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool { split(bytes) != nil }

    private static func parse(_ bytes: UnsafeRawBufferPointer) -> (host: String, port: Int?)? {
        guard let (hostEnd, port) = split(bytes) else { return nil }
        return (String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<hostEnd]), as: UTF8.self).lowercased(), port)
    }

    /// Where the host ends and the port, when `bytes` are an authority.
    private static func split(_ bytes: UnsafeRawBufferPointer) -> (hostEnd: Int, port: Int?)? {
        let hostEnd: Int
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1,
                  bytes[1..<close].allSatisfy({ $0.isHexDigit || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }),
                  bytes[1..<close].contains(UInt8(ascii: ":")) else { return nil }
            hostEnd = close + 1
        } else {
            var index = 0
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit else { return nil }
                    index += 3
                    continue
                }
                guard byte.isUnreserved || byte.isSubDelimiter else { return nil }
                index += 1
            }
            hostEnd = index
        }
        guard hostEnd < bytes.count else { return (hostEnd, nil) }
        guard bytes[hostEnd] == UInt8(ascii: ":") else { return nil }
        let digits = bytes[(hostEnd + 1)...]
        guard digits.count <= 5, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        guard !digits.isEmpty else { return (hostEnd, nil) }
        let port = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard port <= 65_535 else { return nil }
        return (hostEnd, port)
    }
}

extension UInt8 {
    /// RFC 3986 `unreserved`: letters, digits, `-`, `.`, `_`, `~`.
    package var isUnreserved: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// RFC 3986 `sub-delims`: `!$&'()*+,;=`.
    package var isSubDelimiter: Bool {
        switch self {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    /// An ASCII hexadecimal digit.
    package var isHexDigit: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): return true
        default: return false
        }
    }
}
