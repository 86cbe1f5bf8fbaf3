import Foundation

/// Reads Apple's XML property list format.
///
/// A small hand-written parser for the subset of XML that property lists use (a prolog,
/// comments, a `DOCTYPE`, elements, the five named entities, character references and
/// CDATA), so that it behaves the same on every platform and never needs libxml2. It reads
/// files from Apple's and Python's writers and reports the place of any problem.
struct XMLPropertyListReader {
    private struct Tag {
        var name: String
        var isClosing: Bool
        var isEmpty: Bool
    }

    private static let maximumDepth = 256

    private let bytes: [UInt8]
    private var position = 0
    private var path = PropertyListPath()
    private var depth = 0

    static func decode(_ data: Data) throws -> PropertyList {
        var reader = XMLPropertyListReader(bytes: Array(data))
        return try reader.readDocument()
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func readDocument() throws -> PropertyList {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        try skipMarkup()
        var tag = try readTag()
        let wrapped = tag.name == "plist" && !tag.isClosing
        if wrapped {
            guard !tag.isEmpty else { throw corrupt("empty <plist/> element") }
            try skipMarkup()
            tag = try readTag()
        }
        let value = try readValue(tag)
        if wrapped {
            try skipMarkup()
            let closing = try readTag()
            guard closing.isClosing, closing.name == "plist" else { throw corrupt("expected </plist>, found <\(closing.name)>") }
        }
        try skipMarkup()
        guard position == bytes.count else { throw corrupt("unexpected content after the property list") }
        return value
    }

    // MARK: Values

    private mutating func readValue(_ tag: Tag) throws -> PropertyList {
        guard !tag.isClosing else { throw corrupt("unexpected </\(tag.name)>") }
        switch tag.name {
        case "dict": return try readDictionary(tag)
        case "array": return try readArray(tag)
        case "string": return .string(tag.isEmpty ? "" : try readText(closing: "string"))
        case "true", "false":
            if !tag.isEmpty {
                try skipMarkup()
                let closing = try readTag()
                guard closing.isClosing, closing.name == tag.name else { throw corrupt("<\(tag.name)> must be empty") }
            }
            return .bool(tag.name == "true")
        case "integer":
            let text = try readTrimmedText(tag)
            guard let number = XMLPropertyListReader.integer(text) else {
                throw corrupt("'\(text)' is not a 64-bit integer")
            }
            return .integer(number)
        case "real":
            let text = try readTrimmedText(tag)
            guard let number = Double(text) else { throw corrupt("'\(text)' is not a real number") }
            try PropertyList.checkFinite(number, at: path)
            return .real(number)
        case "date":
            let text = try readTrimmedText(tag)
            guard let date = ISO8601Date.parse(text) else { throw corrupt("'\(text)' is not a date") }
            return .date(date)
        case "data":
            let text = try readTrimmedText(tag).filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: text) else { throw corrupt("data is not valid base64") }
            return .data(data)
        default:
            throw corrupt("unknown element <\(tag.name)>")
        }
    }

    private mutating func readDictionary(_ tag: Tag) throws -> PropertyList {
        if tag.isEmpty { return .dictionary([:]) }
        try enter()
        defer { depth -= 1 }
        var entries: [String: PropertyList] = [:]
        while true {
            try skipMarkup()
            let keyTag = try readTag()
            if keyTag.isClosing && keyTag.name == "dict" { return .dictionary(entries) }
            guard keyTag.name == "key", !keyTag.isClosing else {
                throw corrupt("expected <key> in a dictionary, found <\(keyTag.isClosing ? "/" : "")\(keyTag.name)>")
            }
            let key = keyTag.isEmpty ? "" : try readText(closing: "key")
            try skipMarkup()
            path.push(key)
            let valueTag = try readTag()
            guard !(valueTag.isClosing && valueTag.name == "dict") else { throw corrupt("key without a value") }
            try path.add(try readValue(valueTag), forKey: key, to: &entries)
            path.pop()
        }
    }

    private mutating func readArray(_ tag: Tag) throws -> PropertyList {
        if tag.isEmpty { return .array([]) }
        try enter()
        defer { depth -= 1 }
        var items: [PropertyList] = []
        while true {
            try skipMarkup()
            let itemTag = try readTag()
            if itemTag.isClosing && itemTag.name == "array" { return .array(items) }
            path.push(items.count)
            items.append(try readValue(itemTag))
            path.pop()
        }
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= XMLPropertyListReader.maximumDepth else {
            throw corrupt("nesting deeper than \(XMLPropertyListReader.maximumDepth) levels")
        }
    }

    private mutating func readTrimmedText(_ tag: Tag) throws -> String {
        let text = tag.isEmpty ? "" : try readText(closing: tag.name)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Decimal or `0x` hexadecimal, with an optional sign, as Apple's reader accepts.
    private static func integer(_ text: String) -> Int64? {
        var body = Substring(text)
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        if body.hasPrefix("0x") || body.hasPrefix("0X") {
            guard let magnitude = UInt64(body.dropFirst(2), radix: 16) else { return nil }
            if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
            return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
        }
        return Int64(negative ? "-" + body : String(body))
    }

    // MARK: Markup

    /// Text up to `</name>`, with entities, character references and CDATA resolved.
    private mutating func readText(closing name: String) throws -> String {
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw truncated() }
            let byte = bytes[position]
            if byte == UInt8(ascii: "&") {
                text.append(contentsOf: try readEntity())
            } else if byte == UInt8(ascii: "<") {
                if starts(with: "<![CDATA[") {
                    position += 9
                    let end = try find("]]>")
                    text.append(contentsOf: bytes[position..<end])
                    position = end + 3
                } else if starts(with: "<!--") {
                    position = try find("-->") + 3
                } else {
                    let tag = try readTag()
                    guard tag.isClosing, tag.name == name else { throw corrupt("unexpected <\(tag.name)> inside <\(name)>") }
                    return String(decoding: text, as: UTF8.self)
                }
            } else {
                text.append(byte)
                position += 1
            }
        }
    }

    private mutating func readEntity() throws -> [UInt8] {
        let end = try find(";")
        let name = String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
        position = end + 1
        switch name {
        case "amp": return Array("&".utf8)
        case "lt": return Array("<".utf8)
        case "gt": return Array(">".utf8)
        case "quot": return Array("\"".utf8)
        case "apos": return Array("'".utf8)
        default:
            let number: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                number = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#") {
                number = UInt32(name.dropFirst())
            } else {
                number = nil
            }
            guard let number, let scalar = Unicode.Scalar(number) else { throw corrupt("unknown entity &\(name);") }
            return Array(String(Character(scalar)).utf8)
        }
    }

    /// Reads `<name …>`, `</name>` or `<name …/>`; attributes are skipped.
    private mutating func readTag() throws -> Tag {
        guard position < bytes.count else { throw truncated() }
        guard bytes[position] == UInt8(ascii: "<") else { throw corrupt("expected an element") }
        position += 1
        let isClosing = position < bytes.count && bytes[position] == UInt8(ascii: "/")
        if isClosing { position += 1 }
        let start = position
        while position < bytes.count, !XMLPropertyListReader.endsName(bytes[position]) { position += 1 }
        let name = String(decoding: bytes[start..<position], as: UTF8.self)
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                let isEmpty = position >= 2 && bytes[position - 2] == UInt8(ascii: "/")
                guard !name.isEmpty else { throw corrupt("element without a name") }
                return Tag(name: name, isClosing: isClosing, isEmpty: isEmpty && !isClosing)
            }
        }
        throw truncated()
    }

    /// Skips whitespace, comments, processing instructions and the DOCTYPE.
    private mutating func skipMarkup() throws {
        while position < bytes.count {
            let byte = bytes[position]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                position += 1
            } else if starts(with: "<?") {
                position = try find("?>") + 2
            } else if starts(with: "<!--") {
                position = try find("-->") + 3
            } else if starts(with: "<!DOCTYPE") {
                try skipDoctype()
            } else {
                return
            }
        }
    }

    private mutating func skipDoctype() throws {
        var brackets = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "[") { brackets += 1 }
            if byte == UInt8(ascii: "]") { brackets -= 1 }
            if byte == UInt8(ascii: ">") && brackets <= 0 { return }
        }
        throw truncated()
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        let pattern = UnsafeBufferPointer(start: text.utf8Start, count: count)
        return bytes[position..<(position + count)].elementsEqual(pattern)
    }

    /// The position of the next `text` at or after the current position.
    private func find(_ text: StaticString) throws -> Int {
        let pattern = Array(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        var index = position
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0] && bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        throw truncated()
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func corrupt(_ reason: String) -> StashError {
        StashError(.corruptFile, "\(reason) (byte \(position))", key: path.description)
    }

    private func truncated() -> StashError {
        StashError(.truncatedFile, "the XML property list ends early", key: path.description)
    }
}
