import Foundation

extension PropertyList {
    /// The property list a `Codable` value encodes to: structs and dictionaries become
    /// dictionaries, arrays arrays, dates dates and `Data` data.
    ///
    /// ```swift
    /// struct Settings: Codable { var volume: Double; var name: String }
    /// let tree = try PropertyList(encoding: Settings(volume: 0.8, name: "Ada"))
    /// tree["volume"] // .real(0.8)
    /// ```
    ///
    /// Foundation's `PropertyListEncoder` does the encoding, so the tree is exactly what
    /// Apple's plist coders produce for the value (a `nil` optional is left out).
    ///
    /// - throws: ``StashError/Code/unsupportedValue`` when the value cannot be encoded (a
    ///   NaN, say), naming the coding path.
    public init<Value: Encodable>(encoding value: Value) throws {
        self = try CodableBridge.propertyList.encode(value)
    }

    /// Decodes a `Codable` value from this tree.
    ///
    /// ```swift
    /// let settings = try tree.decode(Settings.self)
    /// ```
    ///
    /// - throws: ``StashError/Code/typeMismatch`` naming the coding path of a missing or
    ///   mistyped field.
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self) throws -> Value {
        try CodableBridge.propertyList.decode(type, from: self)
    }
}

/// Moves `Codable` values to and from ``PropertyList`` trees through Foundation's coders.
///
/// Plist coders keep dates and data as such; JSON coders spell dates as numbers (seconds
/// since 2001) and data as base64 strings, which is how a JSON file keeps them. A tree read
/// from a JSON file must therefore be decoded with the JSON bridge, and one read from a plist
/// with the plist bridge.
enum CodableBridge {
    case propertyList
    case json

    /// The bridge that matches how a file in `format` spells dates and data.
    init(_ format: PropertyListFormat) { self = format == .json ? .json : .propertyList }

    /// Top-level scalars are not allowed by every Foundation coder, so values travel inside
    /// a one-field box.
    private struct EncodingBox<Value: Encodable>: Encodable {
        var value: Value
    }

    func encode<Value: Encodable>(_ value: Value) throws -> PropertyList {
        let data: Data
        do {
            switch self {
            case .propertyList:
                let encoder = PropertyListEncoder()
                encoder.outputFormat = .binary
                data = try encoder.encode(EncodingBox(value: value))
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                data = try encoder.encode(EncodingBox(value: value))
            }
        } catch let error as EncodingError {
            throw StashError(.unsupportedValue, "cannot encode \(Value.self): \(CodableBridge.describe(error))")
        }
        let tree = try PropertyList(data: data, format: self == .json ? .json : .binary)
        guard let encoded = tree["value"] else {
            throw StashError(.unsupportedValue, "\(Value.self) encodes to nothing")
        }
        return encoded
    }

    func decode<Value: Decodable>(_ type: Value.Type, from tree: PropertyList) throws -> Value {
        let boxed: PropertyList = ["value": tree]
        do {
            switch self {
            case .propertyList:
                return try PropertyListDecoder().decode(DecodingBox<Value>.self, from: boxed.data(format: .binary)).value
            case .json:
                return try JSONDecoder().decode(DecodingBox<Value>.self, from: boxed.data(format: .json)).value
            }
        } catch let error as DecodingError {
            throw StashError(.typeMismatch, "cannot decode \(Value.self): \(CodableBridge.describe(error))")
        }
    }

    private struct DecodingBox<Value: Decodable>: Decodable {
        var value: Value
    }

    /// One line for a coding error: what went wrong and where (`settings.volume`).
    static func describe(_ error: any Error) -> String {
        func where_(_ path: [any CodingKey]) -> String {
            let names = path.dropFirst().map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return names.isEmpty ? "the top level" : String(names.drop { $0 == "." })
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing field '\(key.stringValue)' at \(where_(context.codingPath + [key]))"
        case DecodingError.typeMismatch(let type, let context), DecodingError.valueNotFound(let type, let context):
            return "expected \(type) at \(where_(context.codingPath))"
        case DecodingError.dataCorrupted(let context):
            return "\(context.debugDescription) at \(where_(context.codingPath))"
        case EncodingError.invalidValue(_, let context):
            return "\(context.debugDescription) at \(where_(context.codingPath))"
        default:
            return "\(error)"
        }
    }
}
