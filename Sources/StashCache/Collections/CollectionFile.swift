import Foundation
import StashCore

/// The JSON files that ``ExpiringPool`` and ``BoundedQueue`` save to and load from.
///
/// A file is one JSON object: `{"format": "stash.pool", "version": 1, "items": [...]}`.
/// Writes go through `FileStore.write`, so a crash leaves the previous file or the new one.
enum CollectionFile {
    static let version = 1

    private struct Header: Decodable {
        var format: String
        var version: Int
    }

    private struct Envelope<Item: Encodable>: Encodable {
        var format: String
        var version: Int
        var items: [Item]
    }

    private struct Contents<Item: Decodable>: Decodable {
        var items: [Item]
    }

    /// Encodes `items` and writes them atomically to `url`.
    static func write<Item: Encodable>(
        _ items: [Item], format: String, to url: URL, durability: FileStore.Durability
    ) throws {
        let data: Data
        do {
            data = try JSONEncoder().encode(Envelope(format: format, version: version, items: items))
        } catch {
            throw StashError(.unsupportedValue, "cannot encode as JSON: \(error)", path: url.path)
        }
        try FileStore.write(data, to: url, durability: durability)
    }

    /// Reads the items of a file written by ``write(_:format:to:durability:)``.
    ///
    /// - throws: `notFound` when the file is missing, `corruptFile` when it is not such a file
    ///   or cannot be decoded, `unsupportedVersion` when a newer Stash wrote it.
    static func read<Item: Decodable>(_ type: Item.Type, format: String, from url: URL) throws -> [Item] {
        let data = try FileStore.read(url)
        let decoder = JSONDecoder()
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: data)
        } catch {
            throw StashError(.corruptFile, "not a \(format) file: \(describe(error))", path: url.path)
        }
        guard header.format == format else {
            throw StashError(.corruptFile, "a \(header.format) file, not a \(format) file", path: url.path)
        }
        guard header.version <= version else {
            throw StashError(.unsupportedVersion, "format version \(header.version), this build reads up to \(version)", path: url.path)
        }
        do {
            return try decoder.decode(Contents<Item>.self, from: data).items
        } catch {
            throw StashError(.corruptFile, "cannot decode: \(describe(error))", path: url.path)
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context),
             DecodingError.keyNotFound(_, let context),
             DecodingError.typeMismatch(_, let context),
             DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
