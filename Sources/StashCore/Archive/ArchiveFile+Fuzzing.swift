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
        // The real load path, with a migration step that edits the tree as users' steps do.
        let migrations: [Int: ArchiveFile<Sample>.Migration] = [
            0: { tree in
                if case .dictionary(var fields) = tree {
                    fields["tags"] = fields["tags"] ?? []
                    tree = .dictionary(fields)
                }
            },
        ]
        _ = try? ArchiveEnvelope.decode(Sample.self, from: Data(bytes), version: 1, migrations: migrations)
    }

    /// Archives in every format, for the seed corpus.
    package static func seeds() throws -> [Data] {
        let sample = Sample(name: "Ada", tags: ["a", "caf\u{E9}"], score: 4.5, created: Date(timeIntervalSinceReferenceDate: 7e8), blob: Data([1, 2, 3]))
        return try PropertyListFormat.allCases.map { try ArchiveEnvelope.encode(sample, version: 1, format: $0) }
    }

}
