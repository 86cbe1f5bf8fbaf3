import ArgumentParser
import Foundation
import Stash

/// How `stash defaults` parses typed values and prints them (the old-style plist syntax
/// macOS `defaults` prints).
enum DefaultsFormat {
    static func parse(_ arguments: [String]) throws -> PreferenceValue {
        guard let first = arguments.first else { throw ValidationError("missing value") }
        guard first.hasPrefix("-"), first.count > 1, Double(first) == nil else {
            guard arguments.count == 1 else { throw ValidationError("one value expected; use -array for several") }
            return .string(first)
        }
        let values = Array(arguments.dropFirst())
        func single() throws -> String {
            guard values.count == 1 else { throw ValidationError("\(first) takes exactly one value") }
            return values[0]
        }
        switch first {
        case "-string": return .string(try single())
        case "-int", "-integer":
            guard let value = Int64(try single()) else { throw ValidationError("not an integer: \(values[0])") }
            return .integer(value)
        case "-float", "-double":
            guard let value = Double(try single()) else { throw ValidationError("not a number: \(values[0])") }
            return .double(value)
        case "-bool", "-boolean":
            switch try single().lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw ValidationError("not a boolean: \(values[0])")
            }
        case "-date":
            guard let date = try? Date(try single(), strategy: .iso8601) else {
                throw ValidationError("not an ISO 8601 date: \(values[0])")
            }
            return .date(date)
        case "-data":
            guard let data = hexadecimal(try single()) else { throw ValidationError("not hexadecimal data: \(values[0])") }
            return .data(data)
        case "-array": return .array(values.map { .string($0) })
        case "-dict":
            guard values.count % 2 == 0 else { throw ValidationError("-dict takes pairs of keys and values") }
            var dictionary: [String: PreferenceValue] = [:]
            for pair in stride(from: 0, to: values.count, by: 2) { dictionary[values[pair]] = .string(values[pair + 1]) }
            return .dictionary(dictionary)
        case "-json":
            let text = try single()
            guard (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil else {
                throw ValidationError("not valid JSON: \(text)")
            }
            return .json(Data(text.utf8))
        default:
            throw ValidationError("unknown type flag \(first); use -string -int -float -bool -date -data -array -dict -json")
        }
    }

    private static func hexadecimal(_ text: String) -> Data? {
        let digits = Array(text.filter { !$0.isWhitespace && $0 != "<" && $0 != ">" })
        guard digits.count % 2 == 0 else { return nil }
        var data = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else { return nil }
            data.append(byte)
        }
        return data
    }

    /// A value in the old-style plist syntax, indented for nesting.
    static func describe(_ value: PreferenceValue, indent: String = "") -> String {
        switch value {
        case .array(let values):
            guard !values.isEmpty else { return "()" }
            let inner = indent + "    "
            return "(\n" + values.map { inner + describe($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent + ")"
        case .dictionary(let values):
            guard !values.isEmpty else { return "{\n" + indent + "}" }
            let inner = indent + "    "
            let lines = values.sorted { $0.key < $1.key }.map { inner + quoted($0.key) + " = " + describe($0.value, indent: inner) + ";" }
            return "{\n" + lines.joined(separator: "\n") + "\n" + indent + "}"
        case .string(let text): return quoted(text)
        default: return value.description
        }
    }

    private static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "_" }
        return plain ? text : "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
