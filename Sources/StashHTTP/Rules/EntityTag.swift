/// An entity tag (RFC 9110 §8.8.3) with the strong and weak comparisons of §8.8.3.2.
///
/// Parsing is lenient the way deployed caches are: an unquoted tag is read as its own opaque
/// value, so `abc` and `"abc"` compare equal.
struct EntityTag: Sendable, Equatable {
    var opaque: String
    var isWeak: Bool

    init(opaque: String, isWeak: Bool) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    init?(_ text: String) {
        var rest = Substring(text.trimmingWhitespace())
        var weak = false
        if rest.hasPrefix("W/") || rest.hasPrefix("w/") {
            weak = true
            rest = rest.dropFirst(2)
        }
        if rest.count >= 2, rest.first == "\"", rest.last == "\"" {
            rest = rest.dropFirst().dropLast()
        }
        guard !rest.isEmpty else { return nil }
        opaque = String(rest)
        isWeak = weak
    }

    /// The tag as sent in a field: `"abc"` or `W/"abc"`.
    var fieldValue: String { (isWeak ? "W/" : "") + "\"" + opaque + "\"" }

    /// Both strong and equal: what ranges and selecting a stored response by a 304 need.
    func strongMatches(_ other: EntityTag) -> Bool { !isWeak && !other.isWeak && opaque == other.opaque }

    /// Equal ignoring weakness: what `If-None-Match` uses.
    func weakMatches(_ other: EntityTag) -> Bool { opaque == other.opaque }

    /// The tags of an `If-None-Match` field, or `nil` for `*`.
    static func list(_ lines: [String]) -> [EntityTag]? {
        let members = FieldList.members(lines)
        if members.contains("*") { return nil }
        return members.compactMap(EntityTag.init)
    }
}
