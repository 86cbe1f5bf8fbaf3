/// Comma-separated field values (RFC 9110 §5.6.1): splitting that respects quoted strings,
/// and the normal form used to compare `Vary`-selected request fields.
enum FieldList {
    /// The members of a list, trimmed, empty members dropped, quotes kept.
    static func split(_ value: String) -> [String] {
        let bytes = Array(value.utf8)
        var members: [String] = []
        var start = 0
        while start <= bytes.count {
            let end = CacheControl.nextComma(bytes, from: start)
            let member = String(decoding: bytes[start..<end], as: UTF8.self).trimmingWhitespace()
            if !member.isEmpty { members.append(member) }
            start = end + 1
        }
        return members
    }

    /// The members of every line of a field, in order.
    static func members(_ lines: [String]) -> [String] { lines.flatMap(split) }

    /// The comparable form of a field for `Vary` matching: every line combined, whitespace
    /// around members removed. `nil` when the field is absent.
    static func normalized(_ lines: [String]) -> String? {
        guard !lines.isEmpty else { return nil }
        return members(lines).joined(separator: ",")
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
