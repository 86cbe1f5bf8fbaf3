import Foundation
import StashCore
import StashTestSupport
import Testing

struct PropertyListCodecTests {
    static func error(_ body: () throws -> Any) -> StashError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? StashError
        }
    }

    @Test(arguments: PropertyListFormat.allCases)
    func refusesNaNAndInfinityNamingThePath(format: PropertyListFormat) {
        let nan: PropertyList = ["settings": ["items": [1, ["ratio": .real(.nan)]]]]
        let error = Self.error { try nan.data(format: format) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.key == #"root["settings"]["items"][1]["ratio"]"#)

        let infinite: PropertyList = [.real(.infinity)]
        #expect(Self.error { try infinite.data(format: format) }?.key == "root[0]")
    }

    @Test func refusesNullInJSONNamingThePath() {
        let error = Self.error { try PropertyList(data: Data(#"{"a": [1, null]}"#.utf8), format: .json) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.key == #"root["a"][1]"#)
        #expect(error?.description.contains("null") == true)
    }

    @Test func refusesNonStringKeysInBinary() throws {
        // A dictionary whose key is the integer 1: d1 (1 entry), key ref 1, value ref 2.
        var bytes = Array("bplist00".utf8)
        let offsets = [bytes.count, bytes.count + 3, bytes.count + 5]
        bytes += [0xD1, 0x01, 0x02, 0x10, 0x01, 0x10, 0x02]
        let table = bytes.count
        bytes += offsets.map(UInt8.init)
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, 3] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let error = Self.error { try PropertyList(data: Data(bytes)) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.reason.contains("not a string") == true)
    }

    /// A dictionary that holds a key twice is damage in every format: which value the writer
    /// meant cannot be known, and keeping either would hide the other.
    @Test func refusesAKeyTwiceInOneDictionary() {
        // Binary: d2 (2 entries), key refs 1 and 1 (both "a"), value refs 2 and 3.
        var bytes = Array("bplist00".utf8)
        let offsets = [bytes.count, bytes.count + 5, bytes.count + 7, bytes.count + 9]
        bytes += [0xD2, 0x01, 0x01, 0x02, 0x03, 0x51, 0x61, 0x10, 0x01, 0x10, 0x02]
        let table = bytes.count
        bytes += offsets.map(UInt8.init)
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, 4] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let texts = [
            "<plist><dict><key>b</key><dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict></dict></plist>",
            #"{"b": {"a": 1, "a": 2}}"#,
        ]
        for (data, key) in [(Data(bytes), #"root["a"]"#), (Data(texts[0].utf8), #"root["b"]["a"]"#), (Data(texts[1].utf8), #"root["b"]["a"]"#)] {
            let error = Self.error { try PropertyList(data: data) }
            #expect(error?.code == .corruptFile, "\(String(decoding: data, as: UTF8.self))")
            #expect(error?.key == key)
            #expect(error?.reason.contains("twice") == true)
        }
        // The same keys in different dictionaries are fine.
        #expect(Self.error { try PropertyList(data: Data(#"{"a": {"a": 1}}"#.utf8)) } == nil)
        // Two spellings of one key (precomposed and decomposed "é"), which Apple's readers
        // keep apart, are a dictionary the enum cannot hold, not damage.
        for text in ["<plist><dict><key>\u{E9}</key><integer>1</integer><key>e\u{301}</key><integer>2</integer></dict></plist>",
                     "{\"\u{E9}\": 1, \"e\u{301}\": 2}"] {
            let error = Self.error { try PropertyList(data: Data(text.utf8)) }
            #expect(error?.code == .unsupportedValue, "\(text)")
            #expect(error?.reason.contains("spelled differently") == true)
        }
    }

    @Test func refusesXMLRealNaN() {
        let xml = "<plist><dict><key>x</key><real>nan</real></dict></plist>"
        let error = Self.error { try PropertyList(data: Data(xml.utf8)) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.key == #"root["x"]"#)
    }

    @Test func readsXMLEntitiesCDATAAndComments() throws {
        let xml = """
            <?xml version="1.0"?>
            <!-- a comment -->
            <plist version="1.0"><dict>
              <key>a&amp;b</key><string>&lt;&#x1F600;&#65;<![CDATA[<raw>]]></string>
              <key>hex</key><integer>0x1F</integer>
              <key>empty</key><string/>
            </dict></plist>
            """
        let value = try PropertyList(data: Data(xml.utf8))
        #expect(value == ["a&b": "<😀A<raw>", "hex": 31, "empty": ""])
    }

    @Test(arguments: PropertyListFormat.allCases)
    func truncatedInputIsATypedError(format: PropertyListFormat) throws {
        let value: PropertyList = ["name": "Ada", "scores": [1, 2, 3], "nested": ["flag": true]]
        let bytes = try value.data(format: format)
        let whole = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        for length in 0..<bytes.count where format == .binary || String(decoding: bytes.prefix(length), as: UTF8.self) != whole {
            let error = Self.error { try PropertyList(data: bytes.prefix(length), format: format) }
            #expect(error?.code == .truncatedFile || error?.code == .corruptFile, "prefix of \(length) bytes")
        }
    }

    /// Random and mutated bytes never crash a reader; they give a value or a StashError.
    @Test func garbageNeverCrashes() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let sample: PropertyList = [
            "a": [1, 2.5, "three", true, .data(Data([1, 2, 3])), .date(Date(timeIntervalSinceReferenceDate: 0))],
            "b": ["c": "a longer string with ünïcode in it"],
        ]
        let seeds = try PropertyListFormat.allCases.map { try sample.data(format: $0) }
        for round in 0..<3000 {
            var bytes: [UInt8]
            if round % 3 == 0 {
                bytes = (0..<Int.random(in: 0...80, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if round % 2 == 0 { bytes = Array("bplist00".utf8) + bytes }
            } else {
                bytes = Array(seeds[round % seeds.count])
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            for format in PropertyListFormat.allCases {
                do {
                    _ = try PropertyList(data: Data(bytes), format: format)
                } catch {
                    #expect(error is StashError)
                }
            }
        }
    }

    @Test func binaryCyclesAreRefused() {
        // An array (object 0) whose only item is itself.
        var bytes = Array("bplist00".utf8)
        bytes += [0xA1, 0x00]
        let table = bytes.count
        bytes += [8]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        #expect(Self.error { try PropertyList(data: Data(bytes)) }?.code == .corruptFile)
    }

    @Test func largeCollectionsAndSharedValuesRoundTrip() throws {
        let strings = (0..<1000).map { PropertyList.string("item \($0 % 10)") }
        let value: PropertyList = ["items": .array(strings), "numbers": .array((0..<300).map { .integer(Int64($0) * 1_000_003) })]
        for format in PropertyListFormat.allCases {
            #expect(try PropertyList(data: value.data(format: format)) == value)
        }
        // Ten distinct strings are written once each.
        let distinct: PropertyList = ["items": .array((0..<1000).map { .string("item \($0 + 1000)") }), "numbers": value["numbers"]!]
        #expect(try distinct.data(format: .binary).count - value.data(format: .binary).count > 5000)
    }

    @Test func jsonSpellings() throws {
        let value = try PropertyList(data: Data(#"{"i": -12, "r": 1.0, "e": 2e3, "s": "\u00e9\ud83d\ude00\n", "t": true}"#.utf8))
        #expect(value == ["i": -12, "r": 1.0, "e": 2000.0, "s": "é😀\n", "t": true])
        let written = String(decoding: try value.data(format: .json), as: UTF8.self)
        #expect(written.contains(#""r": 1.0"#))
        #expect(written.contains(#""s": "é😀\n""#))
        #expect(try PropertyList(data: Data(written.utf8)) == value)
    }

    @Test func accessorsAndLiterals() {
        var value: PropertyList = ["name": "Ada", "age": 36, "tags": ["a", "b"]]
        #expect(value["name"]?.stringValue == "Ada")
        #expect(value["age"]?.integerValue == 36)
        #expect(value["age"]?.realValue == 36)
        #expect(value["tags"]?[1]?.stringValue == "b")
        #expect(value["tags"]?[5] == nil)
        value["age"] = nil
        #expect(value["age"] == nil)
        #expect(value.typeName == "dictionary")
    }
}
