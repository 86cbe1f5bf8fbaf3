/// The directives of one message's `Cache-Control` fields (RFC 9111 §5.2), parsed once.
///
/// All field lines are combined, split on commas outside quoted strings, and matched
/// case-insensitively. A directive whose syntax is broken (`max-age =60`, `max-age= 60`) is
/// dropped entirely, as though it were absent. When a directive appears twice, the first
/// occurrence wins (RFC 9111 §4.2.1 allows this or treating the response as stale).
struct CacheControl: Sendable, Equatable {
    struct Directive: Sendable, Equatable {
        /// Lowercased directive name.
        var name: String
        /// The argument with quotes and escapes removed, or `nil` without `=`.
        var argument: String?
    }

    /// A `delta-seconds` argument (RFC 9111 §1.2.2).
    enum DeltaSeconds: Sendable, Equatable {
        case seconds(Int)
        /// The directive is present but its argument is not a number: a freshness directive
        /// like this makes the response stale.
        case invalid
    }

    /// Valid directives, in order of appearance.
    private(set) var directives: [Directive] = []

    /// The largest delta-seconds value kept; bigger ones are clamped (RFC 9111 §1.2.2).
    static let maximumDeltaSeconds = 2_147_483_648

    init(fieldValues: [String]) {
        for value in fieldValues { parse(Array(value.utf8)) }
    }

    /// Whether `name` (lowercase) is present.
    func contains(_ name: String) -> Bool { directives.contains { $0.name == name } }

    /// The first occurrence of `name`.
    func first(_ name: String) -> Directive? { directives.first { $0.name == name } }

    /// The delta-seconds argument of the first `name`, or `nil` when absent.
    func seconds(_ name: String) -> DeltaSeconds? {
        guard let directive = first(name) else { return nil }
        guard let argument = directive.argument else { return .invalid }
        return Self.deltaSeconds(argument).map(DeltaSeconds.seconds) ?? .invalid
    }

    /// Parses `1*DIGIT`, clamping huge values.
    static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        var result = 0
        for byte in text.utf8 {
            result = result * 10 + Int(byte - 48)
            if result > maximumDeltaSeconds { return maximumDeltaSeconds }
        }
        return result
    }

    /// Whether `name` appears without field names (`no-cache`, not `no-cache="Set-Cookie"`).
    func isUnqualified(_ name: String) -> Bool {
        directives.contains { $0.name == name && ($0.argument?.isEmpty ?? true) }
    }

    /// Every field name listed by qualified forms of `name` (`no-cache="a, b"`), lowercased.
    func listedFieldNames(_ name: String) -> Set<String> {
        var names = Set<String>()
        for directive in directives where directive.name == name {
            guard let argument = directive.argument else { continue }
            for item in FieldList.split(argument) { names.insert(item.lowercased()) }
        }
        return names
    }

    // MARK: Parsing

    private mutating func parse(_ bytes: [UInt8]) {
        var index = 0
        let count = bytes.count
        while index < count {
            while index < count, bytes[index] == .comma || bytes[index].isWhitespace { index += 1 }
            let nameStart = index
            while index < count, bytes[index].isTokenCharacter { index += 1 }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            var argument: String?
            var valid = !name.isEmpty
            if index < count, bytes[index] == .equals {
                index += 1
                if index < count, bytes[index] == .quote {
                    let (text, end, closed) = Self.quotedString(bytes, from: index)
                    argument = text
                    index = end
                    valid = valid && closed
                } else {
                    let valueStart = index
                    while index < count, bytes[index].isTokenCharacter { index += 1 }
                    argument = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                }
            }
            while index < count, bytes[index].isWhitespace { index += 1 }
            if index < count, bytes[index] != .comma {
                valid = false
                index = Self.nextComma(bytes, from: index)
            }
            if valid { directives.append(Directive(name: name, argument: argument)) }
        }
    }

    /// Reads a quoted-string starting at the opening quote; returns its content, the index
    /// after the closing quote, and whether it was closed.
    static func quotedString(_ bytes: [UInt8], from start: Int) -> (String, Int, Bool) {
        var content: [UInt8] = []
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .backslash, index + 1 < bytes.count {
                content.append(bytes[index + 1])
                index += 2
            } else if byte == .quote {
                return (String(decoding: content, as: UTF8.self), index + 1, true)
            } else {
                content.append(byte)
                index += 1
            }
        }
        return (String(decoding: content, as: UTF8.self), index, false)
    }

    /// The index of the next comma outside a quoted string, or the end.
    static func nextComma(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] != .comma {
            if bytes[index] == .quote {
                index = quotedString(bytes, from: index).1
            } else {
                index += 1
            }
        }
        return index
    }
}

extension UInt8 {
    static let comma = UInt8(ascii: ",")
    static let equals = UInt8(ascii: "=")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")

    var isWhitespace: Bool { self == 0x20 || self == 0x09 }

    /// `tchar` of RFC 9110 §5.6.2: the bytes of a field name that `HTTPField.Name` accepts.
    ///
    /// ```swift
    /// guard !name.isEmpty, name.allSatisfy(\.isTokenCharacter) else { return .other }
    /// ```
    package var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(self)
        }
    }
}
