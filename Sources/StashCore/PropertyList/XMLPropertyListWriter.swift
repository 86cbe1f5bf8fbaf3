import Foundation

/// Writes Apple's XML property list format, indented with tabs as Apple's tools do, with
/// dictionary keys sorted so that one value always gives the same bytes.
struct XMLPropertyListWriter {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    private var out = header

    static func encode(_ value: PropertyList) throws -> Data {
        try value.validate()
        var writer = XMLPropertyListWriter()
        writer.write(value, depth: 0)
        writer.out += "</plist>\n"
        return Data(writer.out.utf8)
    }

    private mutating func write(_ value: PropertyList, depth: Int) {
        let indent = String(repeating: "\t", count: depth)
        switch value {
        case .string(let text):
            out += "\(indent)<string>\(XMLPropertyListWriter.escape(text))</string>\n"
        case .integer(let number):
            out += "\(indent)<integer>\(number)</integer>\n"
        case .real(let number):
            out += "\(indent)<real>\(XMLPropertyListWriter.format(number))</real>\n"
        case .bool(let flag):
            out += "\(indent)<\(flag ? "true" : "false")/>\n"
        case .date(let date):
            out += "\(indent)<date>\(ISO8601Date.format(date))</date>\n"
        case .data(let bytes):
            // Lines of 68 characters, as Apple's and Python's writers wrap them.
            let encoded = Array(bytes.base64EncodedString().utf8)
            out += "\(indent)<data>\n"
            for start in stride(from: 0, to: encoded.count, by: 68) {
                out += indent + String(decoding: encoded[start..<min(start + 68, encoded.count)], as: UTF8.self) + "\n"
            }
            out += "\(indent)</data>\n"
        case .array(let items):
            if items.isEmpty {
                out += "\(indent)<array/>\n"
                return
            }
            out += "\(indent)<array>\n"
            for item in items { write(item, depth: depth + 1) }
            out += "\(indent)</array>\n"
        case .dictionary(let entries):
            if entries.isEmpty {
                out += "\(indent)<dict/>\n"
                return
            }
            out += "\(indent)<dict>\n"
            for (key, item) in entries.sorted(by: { $0.key < $1.key }) {
                out += "\(indent)\t<key>\(XMLPropertyListWriter.escape(key))</key>\n"
                write(item, depth: depth + 1)
            }
            out += "\(indent)</dict>\n"
        }
    }

    /// The shortest text that reads back as the same double; integral values keep a `.0`
    /// so that readers do not take them for integers.
    static func format(_ number: Double) -> String {
        number.description
    }

    /// Escapes markup characters; a carriage return is written as a character reference
    /// because XML readers turn a raw one into a line feed.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\r": escaped += "&#13;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
