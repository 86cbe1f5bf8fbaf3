import Foundation
import StashCore
import StashTestSupport
import Testing

struct ArchiveTests {
    struct Note: Codable, Equatable, Sendable {
        var title: String
        var created: Date
        var attachment: Data
        var tags: [String]
        var rating: Double?
    }

    static let note = Note(
        title: "Grüße 🎉", created: Date(timeIntervalSinceReferenceDate: 700_000_000.25),
        attachment: Data([0, 1, 2, 255]), tags: ["a", "b"], rating: 4.5
    )

    @Test(arguments: PropertyListFormat.allCases)
    func savesAndLoads(format: PropertyListFormat) throws {
        let folder = TemporaryFolder("archive")
        let archive = ArchiveFile<Note>(url: folder.file("note.\(format.fileExtension)"), format: format)
        #expect(try archive.loadIfPresent() == nil)
        try archive.save(Self.note)
        var expected = Self.note
        if format == .xml { expected.created = Date(timeIntervalSinceReferenceDate: 700_000_000) }  // whole seconds
        #expect(try archive.load() == expected)
        #expect(PropertyListFormat.detect(try FileStore.read(archive.url)) == format)
    }

    @Test func topLevelScalarsAndCollections() throws {
        let folder = TemporaryFolder("archive")
        let number = ArchiveFile<Int>(url: folder.file("n.plist"), format: .xml)
        try number.save(42)
        #expect(try number.load() == 42)
        let map = ArchiveFile<[String: [Int]]>(url: folder.file("m.json"), format: .json)
        try map.save(["a": [1, 2], "b": []])
        #expect(try map.load() == ["a": [1, 2], "b": []])
    }

    @Test func aFileInAnotherFormatStillLoads() throws {
        let folder = TemporaryFolder("archive")
        let url = folder.file("note")
        try ArchiveFile<Note>(url: url, format: .json).save(Self.note)
        #expect(try ArchiveFile<Note>(url: url, format: .binary).load() == Self.note)
        try ArchiveFile<Note>(url: url, format: .xml).save(Self.note)
        // XML keeps whole seconds only, as Apple's writer does.
        let loaded = try ArchiveFile<Note>(url: url, format: .binary).load()
        #expect(loaded.created == Date(timeIntervalSinceReferenceDate: 700_000_000))
        #expect(loaded.title == Self.note.title)
    }

    struct ProfileV1: Codable, Equatable, Sendable {
        var name: String
        var nickname: String
        var age: Int
    }

    struct ProfileV2: Codable, Equatable, Sendable {
        var name: String
        var age: Int
        var theme: String
    }

    @Test(arguments: [PropertyListFormat.binary, .json])
    func migratesVersion1To2AddingAndRemovingFields(format: PropertyListFormat) throws {
        let folder = TemporaryFolder("archive")
        let url = folder.file("profile")
        try ArchiveFile<ProfileV1>(url: url, format: format, version: 1).save(ProfileV1(name: "Ada", nickname: "A", age: 36))

        let archive = ArchiveFile<ProfileV2>(url: url, format: format, version: 2)
        #expect(throws: StashError.self) { try archive.load() }  // no migration yet
        archive.migration(from: 1) { profile in
            profile["nickname"] = nil
            profile["theme"] = "system"
        }
        #expect(try archive.load() == ProfileV2(name: "Ada", age: 36, theme: "system"))

        // The load did not rewrite the file: it is still version 1 until the next save.
        let onDisk = try PropertyList(contentsOf: url)
        #expect(onDisk["version"] == 1)
        #expect(onDisk["value"]?["nickname"] == "A")
        try archive.save(try archive.load())
        #expect(try PropertyList(contentsOf: url)["version"] == 2)
    }

    @Test func aNewerFileIsRefusedAndKept() throws {
        let folder = TemporaryFolder("archive")
        let url = folder.file("profile.plist")
        try ArchiveFile<Int>(url: url, version: 3).save(7)
        let before = try FileStore.read(url)
        let error = #expect(throws: StashError.self) { try ArchiveFile<Int>(url: url, version: 2).load() }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.path == url.path)
        #expect(try FileStore.read(url) == before)
    }

    @Test(arguments: PropertyListFormat.allCases)
    func corruptAndTruncatedFilesNameTheFileAndStayUntouched(format: PropertyListFormat) throws {
        let folder = TemporaryFolder("archive")
        let archive = ArchiveFile<Note>(url: folder.file("note"), format: format)
        try archive.save(Self.note)
        let whole = try FileStore.read(archive.url)
        for length in [0, 1, whole.count / 2, whole.count - 2] {
            let cut = whole.prefix(length)
            try FileStore.write(cut, to: archive.url)
            let error = #expect(throws: StashError.self) { try archive.load() }
            #expect([.corruptFile, .truncatedFile, .typeMismatch].contains(error?.code), "\(length) bytes: \(String(describing: error))")
            #expect(error?.path == archive.url.path)
            #expect(try FileStore.read(archive.url) == cut)
        }
    }

    @Test func notAnArchive() throws {
        let folder = TemporaryFolder("archive")
        let url = folder.file("plain.plist")
        try PropertyList.dictionary(["hello": "world"]).write(to: url)
        let error = #expect(throws: StashError.self) { try ArchiveFile<String>(url: url).load() }
        #expect(error?.code == .corruptFile)
        #expect(error?.description.contains(url.path) == true)
    }

    @Test func aMistypedFieldNamesItsPath() throws {
        let folder = TemporaryFolder("archive")
        let url = folder.file("profile.plist")
        try ArchiveFile<[ProfileV1]>(url: url).save([ProfileV1(name: "Ada", nickname: "A", age: 36)])
        let error = #expect(throws: StashError.self) { try ArchiveFile<[ProfileV2]>(url: url).load() }
        #expect(error?.code == .typeMismatch)
        #expect(error?.reason.contains("theme") == true)
    }

    /// JSON has no spelling for NaN: the save is refused before anything is written. Property
    /// lists have one, and keep it.
    @Test func unsupportedValuesAreRefusedBeforeWriting() throws {
        let folder = TemporaryFolder("archive")
        let json = ArchiveFile<[String: Double]>(url: folder.file("ratios.json"), format: .json)
        try json.save(["a": 1])
        let error = #expect(throws: StashError.self) { try json.save(["a": .nan]) }
        #expect(error?.code == .unsupportedValue)
        #expect(try json.load() == ["a": 1])

        let binary = ArchiveFile<[String: Double]>(url: folder.file("ratios.plist"))
        try binary.save(["a": .nan, "b": .infinity])
        let loaded = try binary.load()
        #expect(loaded["a"]?.isNaN == true)
        #expect(loaded["b"] == .infinity)
    }

    /// Many tasks save to one archive at once while others read: every read sees one whole
    /// archive written by one of the writers.
    @Test func concurrentWritersLeaveAValidArchive() async throws {
        let folder = TemporaryFolder("archive")
        let archive = ArchiveFile<[Int]>(url: folder.file("shared.plist"), durability: .processSafe)
        try archive.save([0])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 1...8 {
                group.addTask {
                    for round in 0..<25 {
                        let value = writer * 1000 + round
                        try archive.save(Array(repeating: value, count: 500))
                    }
                }
            }
            group.addTask {
                for _ in 0..<100 {
                    let values = try archive.load()
                    #expect(Set(values).count == 1)
                }
            }
            try await group.waitForAll()
        }
        let final = try archive.load()
        #expect(final.count == 500 && Set(final).count == 1)
        let leftovers = try FileStore.list(folder.url).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }
}
