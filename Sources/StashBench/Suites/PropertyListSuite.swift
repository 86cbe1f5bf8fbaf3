import Foundation
import StashCore

/// Stash's own property-list codecs against Foundation's `PropertyListSerialization`, which
/// reads and writes XML and binary property lists on Linux too: the figures behind keeping
/// ours (docs/ARCHITECTURE.md, "Property lists"). One document of 2,000 records (strings,
/// integers, reals, dates, data, nested arrays), read and written in each format.
enum PropertyListSuite {
    static let suite = "plist"

    @Sendable static func run(_ context: BenchContext) async throws {
        let records = context.scaled(2_000)
        let tree = document(records: records)
        let foundationObject = try PropertyListSerialization.propertyList(
            from: try tree.data(format: .binary), options: [], format: nil
        )
        for (format, foundationFormat) in [(PropertyListFormat.binary, PropertyListSerialization.PropertyListFormat.binary),
                                           (.xml, .xml)] {
            let name = format == .binary ? "binary" : "xml"
            let bytes = try tree.data(format: format)
            // An operation is one record; the document's bytes over its records make the MB/s.
            let sizes = ["document_bytes": "\(bytes.count)", "bytes_per_op": String(format: "%.1f", Double(bytes.count) / Double(records))]
            try await context.compare(suite: suite, case: "read-\(name)", [
                Contender("stash") { _ = try PropertyList(data: bytes, format: format); return records },
                Contender("PropertyListSerialization") {
                    _ = try PropertyListSerialization.propertyList(from: bytes, options: [], format: nil)
                    return records
                },
            ], extra: sizes)
            try await context.compare(suite: suite, case: "write-\(name)", [
                Contender("stash") { _ = try tree.data(format: format); return records },
                Contender("PropertyListSerialization") {
                    _ = try PropertyListSerialization.data(fromPropertyList: foundationObject, format: foundationFormat, options: 0)
                    return records
                },
            ], extra: sizes)
        }
    }

    static func document(records: Int) -> PropertyList {
        var items: [PropertyList] = []
        items.reserveCapacity(records)
        for index in 0..<records {
            items.append([
                "id": .integer(Int64(index)),
                "name": .string("record \(index) ünïcode"),
                "score": .real(Double(index) / 7),
                "active": .bool(index % 2 == 0),
                "created": .date(Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index))),
                "blob": .data(Data((0..<16).map { UInt8(truncatingIfNeeded: index &+ $0) })),
                "tags": ["a", "b", .string("tag-\(index % 10)")],
            ])
        }
        return ["version": 1, "items": .array(items)]
    }
}
