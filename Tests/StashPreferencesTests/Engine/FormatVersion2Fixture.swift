import Foundation
import StashCore
@testable import StashPreferences

/// A suite written in format version 2 (one checksum per record, Stash before record
/// groups), built here from that format's description: the same values as
/// ``FormatVersion1Fixture`` (a removed key, an overwritten one, an expiring one), the bytes
/// up to the header's end.
enum FormatVersion2Fixture {
    static let bytes: Data = {
        var records = BinaryWriter()
        var count: UInt64 = 0
        func record(_ kind: Record.Kind, _ key: String, _ value: PreferenceValue? = nil, expiry: Double? = nil) {
            var body = BinaryWriter()
            body.write(kind.rawValue << 4 | (value?.tag.rawValue ?? 0))
            body.writeCounted(key)
            if let expiry { body.write(expiry.bitPattern) }
            if let value { body.writePayload(value) }
            var framed = BinaryWriter()
            framed.writeCounted(body.bytes)
            records.write(framed.withUnsafeBytes { CRC32.checksum($0.baseAddress!, count: $0.count) })
            records.write(contentsOf: framed.bytes)
            count += 1
        }
        record(.set, "answer", .integer(42))
        record(.set, "negative", .integer(-7))
        record(.set, "big", .unsignedInteger(.max))
        record(.set, "greeting", .string("hello, world"))
        record(.set, "flag", .bool(true))
        record(.set, "ratio", .double(2.5))
        record(.set, "float", .float(1.25))
        record(.set, "date", .date(Date(timeIntervalSinceReferenceDate: 700_000_000)))
        record(.set, "blob", .data(Data([1, 2, 3, 255])))
        record(.set, "link", .url(URL(string: "https://example.com/a?b=c")!))
        record(.set, "id", .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        record(.set, "list", .array([.string("a"), .string("b"), .string("c")]))
        record(.set, "font", .dictionary(["size": .integer(12), "weight": .integer(700)]))
        record(.set, "profile", .json(Data("{\"name\":\"Ada\"}".utf8)))
        record(.set, "caf\u{E9}", .string("caf\u{E9}"))
        record(.set, "removed", .string("gone"))
        record(.remove, "removed")
        record(.set, "overwritten", .integer(1))
        record(.set, "overwritten", .integer(2))
        record(.setExpiring, "expiring", .string("until 2100"), expiry: 4_102_444_800)

        var header = BinaryWriter()
        header.write(contentsOf: Array("STASHPRF".utf8))
        header.write(UInt32(2))
        header.write(UInt32(0))
        header.write(UInt64(1))  // generation
        header.write(count)  // change counter
        header.write(UInt64(64 + records.count))  // end
        header.write(UInt64(0))  // retired
        header.write(header.withUnsafeBytes { CRC32.checksum($0.baseAddress!, count: 48) })
        while header.count < 64 { header.write(UInt8(0)) }
        return Data(header.bytes + records.bytes)
    }()
}
