import Foundation
import StashCore

/// Host names, domains and paths as RFC 6265 compares them (sections 5.1.2 to 5.1.4).
enum CookieDomain {
    /// The longest host name the jar accepts (RFC 1035: 253 characters in text form).
    static let maximumLength = 253

    /// The canonical form of `host` (RFC 6265 5.1.2): lowercase ASCII, each
    /// internationalised label converted to `xn--` punycode, so that `BÜCHER.example`,
    /// `bücher.example` and `xn--bcher-kva.example` are one domain.
    ///
    /// - throws: `StashError(.invalidHost)` for an empty name, control characters, spaces,
    ///   characters no host name holds, a label over 63 bytes or a name over 253.
    static func canonical(_ host: String) throws -> String {
        let printable = StoredKey.printable(String(host.prefix(300)))
        func refuse(_ reason: String) -> StashError {
            StashError(.invalidHost, reason, key: printable)
        }
        guard !host.isEmpty else { throw refuse("empty host name") }
        if host.hasPrefix("["), host.hasSuffix("]") {
            let inner = host.dropFirst().dropLast()
            guard !inner.isEmpty, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw refuse("malformed IPv6 address")
            }
            return host.lowercased()
        }
        var labels: [String] = []
        let normalized = StoredKey.isPlainASCII(host) ? host.lowercased() : host.precomposedStringWithCanonicalMapping.lowercased()
        // IDNA treats the ideographic and full-width full stops as dots.
        let dots: Set<Character> = [".", "\u{3002}", "\u{FF0E}", "\u{FF61}"]
        for label in normalized.split(omittingEmptySubsequences: false, whereSeparator: { dots.contains($0) }) {
            if label.unicodeScalars.allSatisfy({ $0.isASCII }) {
                for byte in label.utf8 {
                    let allowed = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
                    guard allowed else { throw refuse("a host name may not contain \(StoredKey.printable(String(UnicodeScalar(byte))))") }
                }
                labels.append(String(label))
            } else {
                for scalar in label.unicodeScalars where !scalar.isASCII {
                    switch scalar.properties.generalCategory {
                    case .control, .format, .privateUse, .surrogate, .unassigned, .spaceSeparator, .lineSeparator, .paragraphSeparator:
                        throw refuse("a host name may not contain U+\(String(scalar.value, radix: 16, uppercase: true))")
                    default: break
                    }
                }
                for scalar in label.unicodeScalars where scalar.isASCII {
                    let byte = UInt8(scalar.value)
                    let allowed = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
                    guard allowed else { throw refuse("a host name may not contain \(StoredKey.printable(String(scalar)))") }
                }
                guard let encoded = Punycode.encode(String(label)) else { throw refuse("label cannot be encoded") }
                labels.append("xn--" + encoded)
            }
        }
        // A trailing dot names the same host; empty labels elsewhere are malformed.
        if labels.count > 1, labels.last == "" { labels.removeLast() }
        guard !labels.contains(where: \.isEmpty) else { throw refuse("empty label in host name") }
        guard labels.allSatisfy({ $0.utf8.count <= 63 }) else { throw refuse("a label is longer than 63 bytes") }
        let result = labels.joined(separator: ".")
        guard result.utf8.count <= maximumLength else { throw refuse("host name longer than \(maximumLength) bytes") }
        return result
    }

    /// Whether `host` is an IP address literal (no domain matching applies to those).
    static func isIPAddress(_ host: String) -> Bool {
        if host.hasPrefix("[") || host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && Int(part)! <= 255
        }
    }

    /// Whether a connection to `host` over `scheme` counts as secure for cookies: `https`
    /// and `wss`, and loopback hosts, which browsers and curl treat as secure contexts.
    static func isSecure(scheme: String?, host: String) -> Bool {
        if let scheme, ["https", "wss"].contains(scheme.lowercased()) { return true }
        return host == "localhost" || host.hasSuffix(".localhost") || host == "[::1]" || host.hasPrefix("127.")
            && isIPAddress(host)
    }

    /// RFC 6265 5.1.3: `host` is `domain` or a subdomain of it (never for IP addresses).
    static func matches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix(domain) && host.utf8.count > domain.utf8.count
            && host.utf8[host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)] == UInt8(ascii: ".")
            && !isIPAddress(host)
    }

    /// RFC 6265 5.1.4: the folder of the request path, the path of a cookie that names none.
    static func defaultPath(_ requestPath: String) -> String {
        let path = requestPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// RFC 6265 5.1.4: whether a cookie with `cookiePath` goes to `requestPath`.
    static func pathMatches(_ requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.utf8[requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)] == UInt8(ascii: "/")
    }

    /// The path part of a request target, without its query or fragment; `/` when empty.
    static func requestPath(_ target: String?) -> String {
        guard let target, target.hasPrefix("/") else { return "/" }
        let end = target.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? target.endIndex
        return String(target[..<end])
    }
}
