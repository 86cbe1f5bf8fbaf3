import Foundation
import Stash

/// Renders a property list as an indented tree, in the spirit of `plutil -p`:
///
///     {
///       "name" => "Ada"
///       "scores" => [
///         0 => 12
///       ]
///     }
enum PlistPrinter {
    static func render(_ value: PropertyList) -> String {
        var lines: [String] = []
        append(value, prefix: "", indent: "", to: &lines)
        return lines.joined(separator: "\n")
    }

    private static func append(_ value: PropertyList, prefix: String, indent: String, to lines: inout [String]) {
        switch value {
        case .array(let items):
            guard !items.isEmpty else { lines.append(indent + prefix + "[]"); return }
            lines.append(indent + prefix + "[")
            for (index, item) in items.enumerated() {
                append(item, prefix: "\(index) => ", indent: indent + "  ", to: &lines)
            }
            lines.append(indent + "]")
        case .dictionary(let entries):
            guard !entries.isEmpty else { lines.append(indent + prefix + "{}"); return }
            lines.append(indent + prefix + "{")
            for (key, item) in entries.sorted(by: { $0.key < $1.key }) {
                append(item, prefix: "\(quoted(key)) => ", indent: indent + "  ", to: &lines)
            }
            lines.append(indent + "}")
        default:
            lines.append(indent + prefix + scalar(value))
        }
    }

    private static func scalar(_ value: PropertyList) -> String {
        switch value {
        case .string(let text): quoted(text)
        case .integer(let number): String(number)
        case .real(let number): number.description
        case .bool(let flag): flag ? "true" : "false"
        case .date(let date): date.formatted(.iso8601)
        case .data(let bytes):
            "<\(bytes.count) bytes" + (bytes.isEmpty ? "" : ": " + bytes.prefix(16).map { String(format: "%02x", $0) }.joined())
                + (bytes.count > 16 ? "…>" : ">")
        case .array, .dictionary: ""
        }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
