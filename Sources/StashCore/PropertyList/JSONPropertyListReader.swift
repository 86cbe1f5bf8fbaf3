import Foundation

/// Reads JSON into a property list (RFC 8259).
///
/// Numbers without a fraction or exponent become integers (they must fit in 64 bits),
/// others reals. `null` has no property-list equivalent and is refused with the path of
/// the place it was found.
struct JSONPropertyListReader {
    private static let maximumDepth = 256

    private let bytes: [UInt8]
    private var position = 0
    private var path = PropertyListPath()
    private var depth = 0

    static func decode(_ data: Data) throws -> PropertyList {
        var reader = JSONPropertyListReader(bytes: Array(data))
        if reader.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.position = 3 }
        reader.skipWhitespace()
        let value = try reader.readValue()
        reader.skipWhitespace()
        guard reader.position == reader.bytes.count else { throw reader.corrupt("unexpected content after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func readValue() throws -> PropertyList {
        guard position < bytes.count else { throw truncated() }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            throw path.unsupported("null is not a property list value")
        default: return try readNumber()
        }
    }

    private mutating func readObject() throws -> PropertyList {
        try enter()
        defer { depth -= 1 }
        position += 1
        var entries: [String: PropertyList] = [:]
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") { position += 1; return .dictionary(entries) }
        while true {
            skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else { throw corrupt("expected a string key") }
            let key = try readString()
            skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw corrupt("expected ':'") }
            position += 1
            skipWhitespace()
            path.push(key)
            try path.add(try readValue(), forKey: key, to: &entries)
            path.pop()
            skipWhitespace()
            let next = try peek()
            position += 1
            if next == UInt8(ascii: "}") { return .dictionary(entries) }
            guard next == UInt8(ascii: ",") else { throw corrupt("expected ',' or '}'") }
        }
    }

    private mutating func readArray() throws -> PropertyList {
        try enter()
        defer { depth -= 1 }
        position += 1
        var items: [PropertyList] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") { position += 1; return .array(items) }
        while true {
            skipWhitespace()
            path.push(items.count)
            items.append(try readValue())
            path.pop()
            skipWhitespace()
            let next = try peek()
            position += 1
            if next == UInt8(ascii: "]") { return .array(items) }
            guard next == UInt8(ascii: ",") else { throw corrupt("expected ',' or ']'") }
        }
    }

    private mutating func readString() throws -> String {
        position += 1
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw truncated() }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw truncated() }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"): text.append(contentsOf: try readUnicodeEscape())
                default: throw corrupt("bad escape in a string")
                }
            default:
                guard byte >= 0x20 else { throw corrupt("control character in a string") }
                text.append(byte)
            }
        }
    }

    /// `\uXXXX`, joining a UTF-16 surrogate pair when one follows.
    private mutating func readUnicodeEscape() throws -> [UInt8] {
        let first = try readHex4()
        var scalar = Unicode.Scalar(first)
        if (0xD800...0xDBFF).contains(first), bytes.count - position >= 6,
           bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
            position += 2
            let second = try readHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw corrupt("unpaired UTF-16 surrogate") }
            scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        }
        guard let scalar else { throw corrupt("unpaired UTF-16 surrogate") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func readHex4() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw truncated() }
        let text = String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
        guard let value = UInt32(text, radix: 16), text.allSatisfy(\.isHexDigit) else { throw corrupt("bad \\u escape") }
        position += 4
        return value
    }

    private mutating func readNumber() throws -> PropertyList {
        let start = position
        var isReal = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                isReal = true
            } else if !(byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || (0x30...0x39).contains(byte)) {
                break
            }
            position += 1
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard !text.isEmpty, JSONPropertyListReader.isJSONNumber(text) else {
            position = start
            throw corrupt("unexpected character")
        }
        if !isReal {
            guard let number = Int64(text) else { throw path.unsupported("integer \(text) does not fit in 64 bits") }
            return .integer(number)
        }
        guard let number = Double(text), number.isFinite else { throw path.unsupported("number \(text) is out of range") }
        return .real(number)
    }

    /// The JSON number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private static func isJSONNumber(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        func digits() -> Int {
            let count = scalars.prefix(while: { ("0"..."9").contains($0) }).count
            scalars = scalars.dropFirst(count)
            return count
        }
        if scalars.first == "-" { scalars = scalars.dropFirst() }
        if scalars.first == "0" { scalars = scalars.dropFirst() } else if digits() == 0 { return false }
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            if digits() == 0 { return false }
        }
        if scalars.first == "e" || scalars.first == "E" {
            scalars = scalars.dropFirst()
            if scalars.first == "+" || scalars.first == "-" { scalars = scalars.dropFirst() }
            if digits() == 0 { return false }
        }
        return scalars.isEmpty
    }

    private mutating func expect(_ word: String) throws {
        let pattern = Array(word.utf8)
        guard bytes.count - position >= pattern.count else { throw truncated() }
        guard bytes[position..<(position + pattern.count)].elementsEqual(pattern) else { throw corrupt("unexpected character") }
        position += pattern.count
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= JSONPropertyListReader.maximumDepth else {
            throw corrupt("nesting deeper than \(JSONPropertyListReader.maximumDepth) levels")
        }
    }

    private func peek() throws -> UInt8 {
        guard position < bytes.count else { throw truncated() }
        return bytes[position]
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private func corrupt(_ reason: String) -> StashError {
        StashError(.corruptFile, "\(reason) (byte \(position))", key: path.description)
    }

    private func truncated() -> StashError {
        StashError(.truncatedFile, "the JSON ends early", key: path.description)
    }
}
