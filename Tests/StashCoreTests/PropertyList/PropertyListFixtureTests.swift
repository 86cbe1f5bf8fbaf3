import Foundation
import StashCore
import StashTestSupport
import Testing

/// Round trips against files written by Python's plistlib, an independent implementation
/// of Apple's XML and binary formats (Fixtures/make-fixtures.py).
struct PropertyListFixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures", isDirectory: true)

    /// The value make-fixtures.py writes, spelled out independently.
    static let expected: PropertyList = [
        "ascii": "hello, world",
        "unicode": "Grüße, 東京, emoji 🎉",
        "markup": "a < b & c > d \"quoted\" 'single'",
        "empty string": "",
        "long string": "a string longer than fifteen characters",
        "zero": 0,
        "small": 42,
        "byte edge": 255,
        "two bytes": 65535,
        "four bytes": 4_294_967_295,
        "big": .integer(Int64.max),
        "negative": -1,
        "most negative": .integer(Int64.min),
        "real": 3.25,
        "negative real": -0.1,
        "tiny real": 1e-300,
        "true": true,
        "false": false,
        "date": .date(Date(timeIntervalSince1970: 1_709_214_330)),
        "old date": .date(Date(timeIntervalSince1970: -14_182_940)),
        "data": .data(Data((0...255).map { UInt8($0) })),
        "empty data": .data(Data()),
        "empty array": [],
        "empty dict": [:],
        "list": .array((0..<20).map { .integer(Int64($0)) }),
        "nested": ["level": 1, "inner": ["level": 2, "items": ["x", ["deep": [true, 1.5]]]]],
    ]

    static func fixture(_ name: String) throws -> Data {
        try FileStore.read(fixtures.appendingPathComponent(name))
    }

    @Test(arguments: ["all-types.xml.plist", "all-types.binary.plist"])
    func readsPythonFixture(name: String) throws {
        let value = try PropertyList(contentsOf: Self.fixtures.appendingPathComponent(name))
        #expect(value == Self.expected)
    }

    /// With sorted keys, our writers produce exactly plistlib's bytes: same object order,
    /// sharing, integer widths, trailer, XML indentation and base64 wrapping.
    @Test(arguments: [("all-types.xml.plist", PropertyListFormat.xml), ("all-types.binary.plist", .binary)])
    func writesTheSameBytesAsPlistlib(name: String, format: PropertyListFormat) throws {
        #expect(try Self.expected.data(format: format) == Self.fixture(name))
    }

    @Test func detectsFormats() throws {
        #expect(PropertyListFormat.detect(try Self.fixture("all-types.xml.plist")) == .xml)
        #expect(PropertyListFormat.detect(try Self.fixture("all-types.binary.plist")) == .binary)
        #expect(PropertyListFormat.detect(Data(" {\"a\": 1}".utf8)) == .json)
    }

    /// Every type survives a write and a read in each format; JSON keeps dates and data as
    /// strings, as documented.
    @Test(arguments: PropertyListFormat.allCases)
    func roundTripsEveryType(format: PropertyListFormat) throws {
        let bytes = try Self.expected.data(format: format)
        let back = try PropertyList(data: bytes)
        if format == .json {
            #expect(back["date"] == "2024-02-29T13:45:30Z")
            #expect(back["data"]?.stringValue.flatMap { Data(base64Encoded: $0) } == Self.expected["data"]?.dataValue)
            #expect(back["nested"] == Self.expected["nested"])
            #expect(back["unicode"] == Self.expected["unicode"])
        } else {
            #expect(back == Self.expected)
        }
        #expect(try Self.expected.data(format: format) == bytes, "output is deterministic")
    }

    /// plistlib reads back what we write (skipped when python3 is missing).
    @Test(arguments: PropertyListFormat.allCases)
    func pythonReadsWhatWeWrite(format: PropertyListFormat) throws {
        guard format != .json, FileManager.default.isExecutableFile(atPath: "/usr/bin/env") else { return }
        let folder = TemporaryFolder("plist-interop")
        let url = folder.url.appendingPathComponent("ours.plist")
        try Self.expected.write(to: url, format: format)
        let script = """
            import plistlib, sys
            with open(sys.argv[1], 'rb') as f:
                value = plistlib.load(f)
            with open(sys.argv[2], 'rb') as f:
                expected = plistlib.load(f)
            sys.exit(0 if value == expected else 3)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, url.path, Self.fixtures.appendingPathComponent("all-types.binary.plist").path]
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return }
        process.waitUntilExit()
        // 127: no python3 on this machine; anything else must be success.
        if process.terminationStatus == 127 { return }
        #expect(process.terminationStatus == 0)
    }

    @Test func refusesUIDs() throws {
        #expect {
            try PropertyList(data: try Self.fixture("uid.binary.plist"))
        } throws: { error in
            (error as? StashError)?.code == .unsupportedValue && (error as? StashError)?.key == "root[\"object\"]"
        }
    }

    @Test func refusesIntegersOver64Bits() throws {
        #expect {
            try PropertyList(data: try Self.fixture("huge-integer.binary.plist"))
        } throws: { error in
            (error as? StashError)?.code == .unsupportedValue && (error as? StashError)?.key == "root[\"huge\"]"
        }
    }
}
