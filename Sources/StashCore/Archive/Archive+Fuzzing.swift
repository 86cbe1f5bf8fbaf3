package import Foundation

/// The archive reader, reachable by `stash-fuzz` (libFuzzer) and its regression replays:
/// arbitrary bytes are loaded as an archive of a small `Codable` value, through the direct
/// path, the checksum check, the untyped tree and a migration. It must throw typed errors,
/// never crash.
package enum ArchiveFuzzing {
    struct Sample: Codable, Sendable {
        var name: String
        var tags: [String]
        var score: Double?
        var created: Date
        var blob: Data
    }

    package static func run(_ bytes: UnsafeRawBufferPointer) {
        let data = Data(bytes)
        let format = PropertyListFormat.detect(data)
        if let envelope: ArchiveEnvelope.Reading<Sample> = try? ArchiveEnvelope.decodeDirectly(data, format: format),
           let checksum = envelope.checksum {
            _ = try? ArchiveEnvelope.verify(data, checksum: checksum)
        }
        guard var tree = try? ArchiveEnvelope.Tree(decoding: data, format: format) else { return }
        if let checksum = tree.checksum { _ = try? ArchiveEnvelope.verify(data, checksum: checksum) }
        // A migration step that edits the tree, as users' steps do.
        if case .dictionary(var fields) = tree.value {
            fields["tags"] = fields["tags"] ?? []
            tree.value = .dictionary(fields)
        }
        _ = try? CodableBridge(format).decode(Sample.self, from: tree.value)
    }

    /// Archives in every format, for the seed corpus.
    package static func seeds() throws -> [Data] {
        let sample = Sample(name: "Ada", tags: ["a", "caf\u{E9}"], score: 4.5, created: Date(timeIntervalSinceReferenceDate: 7e8), blob: Data([1, 2, 3]))
        return try PropertyListFormat.allCases.map { try ArchiveEnvelope.encode(sample, version: 1, format: $0) }
    }

}
