import Foundation

/// Writes a property list as JSON: pretty-printed with two spaces, keys sorted, so that one
/// value always gives the same bytes.
///
/// JSON has no dates nor bytes: dates become ISO 8601 strings (`2001-01-01T00:00:00Z`)
/// and data becomes base64 strings; both read back as strings.
struct JSONPropertyListWriter {
    private var out = ""

    static func encode(_ value: PropertyList) throws -> Data {
        try value.validate()
        var writer = JSONPropertyListWriter()
        writer.write(value, indent: "")
        writer.out += "\n"
        return Data(writer.out.utf8)
    }

    private mutating func write(_ value: PropertyList, indent: String) {
        switch value {
        case .string(let text): writeString(text)
        case .integer(let number): out += String(number)
        case .real(let number): out += JSONPropertyListWriter.format(number)
        case .bool(let flag): out += flag ? "true" : "false"
        case .date(let date): writeString(ISO8601Date.format(date))
        case .data(let bytes): writeString(bytes.base64EncodedString())
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += indent + "  "
                write(item, indent: indent + "  ")
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .dictionary(let entries):
            guard !entries.isEmpty else { out += "{}"; return }
            out += "{\n"
            let sorted = entries.sorted { $0.key < $1.key }
            for (index, entry) in sorted.enumerated() {
                out += indent + "  "
                writeString(entry.key)
                out += ": "
                write(entry.value, indent: indent + "  ")
                out += index == sorted.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        }
    }

    /// Integral reals keep a `.0` so that they read back as reals, not integers.
    static func format(_ number: Double) -> String {
        let text = number.description
        return text.contains("e") && !text.contains(".") ? text.replacingOccurrences(of: "e", with: ".0e") : text
    }

    private mutating func writeString(_ text: String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
