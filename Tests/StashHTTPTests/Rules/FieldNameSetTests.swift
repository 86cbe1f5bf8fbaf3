import HTTPTypes
import Testing
@testable import StashHTTP

/// ``FieldNameSet`` answers as a `Set` of canonical names would, and hands back a member for
/// its exact spelling only.
struct FieldNameSetTests {
    private static let set = FieldNameSet(spelled: ["If-None-Match", "range", "TE", "Upgrade-Insecure-Requests"])

    /// Membership is by canonical name, whatever the spelling asked about; names of a
    /// member's length but other bytes, and of other lengths, are not members.
    @Test func membershipIsByCanonicalName() throws {
        for spelling in ["if-none-match", "IF-NONE-MATCH", "If-None-Match", "Range", "te", "upgrade-insecure-requests"] {
            #expect(Self.set.contains(try #require(HTTPField.Name(spelling))), "\(spelling)")
        }
        // "if-none-matcx" has a member's length; "accept" and a 70-byte name do not.
        for spelling in ["if-none-matcx", "if-none-matc", "rang", "ranges", "t", "accept", String(repeating: "x", count: 70)] {
            #expect(!Self.set.contains(try #require(HTTPField.Name(spelling))), "\(spelling)")
        }
        var fields = HTTPFields()
        fields[.accept] = "*/*"
        #expect(!Self.set.containsAny(of: fields))
        fields[.range] = "bytes=0-1"
        #expect(Self.set.containsAny(of: fields))
        #expect(!Self.set.containsAny(of: HTTPFields()))
    }

    /// `member(spelled:)` returns the member made with exactly those bytes (its `rawName`),
    /// and nothing for another case or another byte, so a parser keeps the client's spelling.
    @Test func memberIsFoundByItsExactSpelling() {
        func member(_ text: String) -> HTTPField.Name? {
            Array(text.utf8).withUnsafeBytes { Self.set.member(spelled: $0) }
        }
        #expect(member("If-None-Match")?.rawName == "If-None-Match")
        #expect(member("If-None-Match")?.canonicalName == "if-none-match")
        #expect(member("TE")?.rawName == "TE")
        for other in ["if-none-match", "IF-NONE-MATCH", "Range", "te", "If-None-Matc", "If-None-Match\r", "", "If-None-Match\u{0}"] {
            #expect(member(other) == nil, "\(other.debugDescription)")
        }
    }
}
