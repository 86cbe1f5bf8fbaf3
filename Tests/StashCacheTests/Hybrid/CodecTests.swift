import Foundation
import StashCache
import StashCore
import Testing

private struct Profile: Codable, Sendable, Equatable {
    var name: String
    var tags: [String]
}

struct CodecTests {
    @Test func codableValuesRoundTripAsJSONAndBinaryPropertyLists() throws {
        let profile = Profile(name: "Ada", tags: ["math", "engines"])
        let json = JSONCodec<Profile>()
        #expect(try json.decode(json.encode(profile)) == profile)
        #expect(String(decoding: try json.encode(profile), as: UTF8.self).contains("\"Ada\""))
        let plist = PropertyListCodec<Profile>()
        let encoded = try plist.encode(profile)
        #expect(encoded.starts(with: Data("bplist00".utf8)))
        #expect(try plist.decode(encoded) == profile)
        #expect(try DataCodec().decode(Data([1, 2])) == Data([1, 2]))
    }

    @Test func undecodableBytesAreACorruptFileError() {
        expectError(.corruptFile) { _ = try JSONCodec<Profile>().decode(Data("nope".utf8)) }
        expectError(.corruptFile) { _ = try PropertyListCodec<Profile>().decode(Data("nope".utf8)) }
    }
}
