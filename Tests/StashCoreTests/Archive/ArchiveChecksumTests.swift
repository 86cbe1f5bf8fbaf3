import Foundation
@testable import StashCore
import StashTestSupport
import Testing

/// A byte flipped inside a string must not load silently with a wrong value: every changed
/// byte gives `.corruptFile` (or, for a flip that breaks the
/// format itself, `.truncatedFile`), and the file stays untouched.
struct ArchiveChecksumTests {
    struct Contact: Codable, Equatable, Sendable {
        var name: String
        var email: String
        var notes: [String]
        var score: Int
    }

    static let contact = Contact(
        name: "Ada Lovelace", email: "ada@example.com",
        notes: ["first note", "second note with ünïcode"], score: 1815
    )

    @Test(arguments: PropertyListFormat.allCases)
    func everySingleByteFlipIsDetected(format: PropertyListFormat) throws {
        let folder = TemporaryFolder("archive-flip")
        let url = folder.file("contact.\(format.fileExtension)")
        let archive = ArchiveFile<Contact>(url: url, format: format)
        try archive.save(Self.contact)
        let original = try FileStore.read(url)
        let seed = SeededGenerator.freshSeed(for: "everySingleByteFlipIsDetected(\(format))")
        var generator = SeededGenerator(seed: seed)
        // Every byte once, each with a random non-zero XOR mask.
        for offset in 0..<original.count {
            var damaged = original
            damaged[offset] ^= UInt8.random(in: 1...255, using: &generator)
            try FileStore.write(damaged, to: url, durability: .processSafe)
            do {
                let loaded = try archive.load()
                Issue.record("byte \(offset) of \(original.count) flipped and the archive loaded \(loaded)")
            } catch let error as StashError {
                #expect([.corruptFile, .truncatedFile].contains(error.code), "byte \(offset): \(error)")
                #expect(error.path == url.path)
            }
            #expect(try FileStore.read(url) == damaged, "a load wrote the file")
        }
        try FileStore.write(original, to: url, durability: .processSafe)
        #expect(try archive.load() == Self.contact)
    }

    /// Every value of every byte of a binary file's top dictionary (its marker and its
    /// one-byte key and value references): a reference redirected to another key made the
    /// checksum field disappear behind a second `value` key, and the file loaded as one
    /// written before checksums (found by the flip test above with seed 4026007677178285153).
    @Test func everyValueOfTheTopDictionarysBytesIsDetected() throws {
        let folder = TemporaryFolder("archive-dictionary")
        let url = folder.file("contact.plist")
        let archive = ArchiveFile<Contact>(url: url, format: .binary)
        try archive.save(Self.contact)
        let original = try FileStore.read(url)
        // "bplist00", then the top object: a dictionary of 3 (0xD3) and 6 one-byte references.
        try #require(original[8] == 0xD3)
        for offset in 8...14 {
            for mask in UInt8(1)...UInt8(255) {
                var damaged = original
                damaged[offset] ^= mask
                try FileStore.write(damaged, to: url, durability: .processSafe)
                #expect(throws: StashError.self, "byte \(offset) ^ \(mask)") { try archive.load() }
            }
        }
    }

    /// A file written before checksums existed (`{"version", "value"}` only) still loads, and
    /// the next save adds a checksum.
    @Test(arguments: PropertyListFormat.allCases)
    func filesWithoutAChecksumStillLoad(format: PropertyListFormat) throws {
        let folder = TemporaryFolder("archive-old")
        let url = folder.file("contact.\(format.fileExtension)")
        let tree = try PropertyList(encoding: Self.contact)
        let old: PropertyList = ["version": 1, "value": tree]
        try FileStore.write(try old.data(format: format), to: url)
        let archive = ArchiveFile<Contact>(url: url, format: format)
        #expect(try archive.load() == Self.contact)
        try archive.save(Self.contact)
        let saved = try PropertyList(data: try FileStore.read(url))
        guard case .string(let checksum)? = saved["checksum"] else {
            Issue.record("no checksum after a save")
            return
        }
        #expect(checksum.hasPrefix("sha256:"))
    }

    /// A field that is neither version, checksum nor value is damage (a flipped byte in the
    /// key "checksum" must not make the file load without a check).
    @Test func anUnknownFieldIsCorruption() throws {
        let folder = TemporaryFolder("archive-field")
        let url = folder.file("contact.plist")
        let old: PropertyList = ["version": 1, "value": try PropertyList(encoding: Self.contact), "chdcksum": "x"]
        try FileStore.write(try old.data(format: .binary), to: url)
        let error = #expect(throws: StashError.self) { try ArchiveFile<Contact>(url: url).load() }
        #expect(error?.code == .corruptFile)
    }

    /// The value a user stores may itself look like a checksum.
    @Test func valuesThatLookLikeAChecksumDoNotConfuseIt() throws {
        let folder = TemporaryFolder("archive-lookalike")
        let url = folder.file("strings.json")
        let archive = ArchiveFile<[String]>(url: url, format: .json)
        try archive.save(["sha256:0000000000000000:0000000000000000"])
        let saved = try PropertyList(data: try FileStore.read(url))
        guard case .string(let checksum)? = saved["checksum"] else { Issue.record("no checksum"); return }
        // Store the file's own checksum as a value: it is then found twice, and the next save
        // picks a fresh nonce, so loads still verify.
        try archive.save([checksum, checksum])
        #expect(try archive.load() == [checksum, checksum])
    }
}
