import HTTPTypes

extension HTTPField.Name {
    /// `CDN-Cache-Control` (RFC 9213): `Cache-Control` aimed at CDNs and reverse proxies only.
    static let cdnCacheControl = HTTPField.Name("CDN-Cache-Control")!
    /// `Surrogate-Control` (Edge Architecture 1.0): the older surrogate-targeted field.
    static let surrogateControl = HTTPField.Name("Surrogate-Control")!
}

/// Targeted cache control (RFC 9213): which directives govern a cache for a response.
extension CacheControl {
    /// The targeted fields a shared cache honours, most specific first.
    static let targetedFields: [HTTPField.Name] = [.cdnCacheControl, .surrogateControl]

    /// The directives that decide storage and freshness for a cache in `mode`.
    ///
    /// A shared cache sits where a CDN or reverse proxy would, so a valid `CDN-Cache-Control`
    /// (or else `Surrogate-Control`) replaces `Cache-Control` for its own decisions; the
    /// fields themselves still travel downstream unchanged. A targeted field that does not
    /// parse is ignored as a whole (RFC 9213 §2.1), and private caches never read them.
    static func governing(_ fields: HTTPFields, mode: HTTPCacheMode) -> CacheControl {
        if mode == .shared {
            for name in targetedFields {
                let lines = fields[values: name]
                if !lines.isEmpty, let members = targetedMembers(lines) { return CacheControl(fieldValues: [members]) }
            }
        }
        return CacheControl(fieldValues: fields[values: .cacheControl])
    }

    /// The members of a targeted field with their parameters removed, or `nil` when one
    /// member is not `key` or `key=value` in dictionary syntax, or a delta-seconds directive
    /// carries something other than an integer (`max-age="60"`).
    private static func targetedMembers(_ lines: [String]) -> String? {
        var kept: [String] = []
        for member in FieldList.members(lines) {
            let item = member.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].lowercased()
            guard let first = key.first, first.isLowercaseLetter || first == "*",
                  key.allSatisfy({ $0.isLowercaseLetter || $0.isASCIIDigit || "_-.*".contains($0) }) else { return nil }
            if parts.count == 2 {
                let value = parts[1]
                guard let head = value.first, head != " ", head != "\t" else { return nil }
                if deltaSecondsDirectives.contains(key), deltaSeconds(String(value)) == nil { return nil }
            }
            kept.append(parts.count == 2 ? "\(key)=\(parts[1])" : key)
        }
        return kept.joined(separator: ", ")
    }

    private static let deltaSecondsDirectives: Set<String> = ["max-age", "s-maxage", "stale-while-revalidate", "stale-if-error"]
}

private extension Character {
    var isLowercaseLetter: Bool { ("a"..."z").contains(self) }
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
