import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

struct Profile: Codable, Sendable, Equatable {
    var name: String
    var age: Int
}

@Suite struct ValueRoundTripTests {
    let folder = TemporaryFolder("prefs-values")
    var file: URL { folder.file("values.stashprefs") }

    /// Writes with one store, closes it, and reads with a fresh one.
    func reopened(_ write: (Preferences) throws -> Void) throws -> Preferences {
        let writer = try Preferences(url: file)
        try write(writer)
        writer.close()
        return try Preferences(url: file)
    }

    @Test func everyValueTypeSurvivesCloseAndReopen() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let uuid = UUID()
        let url = URL(string: "https://example.com/a?b=c")!
        let prefs = try reopened { prefs in
            try prefs.set(true, forKey: "bool")
            try prefs.set(Int.min, forKey: "int")
            try prefs.set(Int8(-8), forKey: "int8")
            try prefs.set(Int16(-16), forKey: "int16")
            try prefs.set(Int32.max, forKey: "int32")
            try prefs.set(Int64.min, forKey: "int64")
            try prefs.set(UInt.max, forKey: "uint")
            try prefs.set(UInt8(255), forKey: "uint8")
            try prefs.set(UInt16.max, forKey: "uint16")
            try prefs.set(UInt32.max, forKey: "uint32")
            try prefs.set(UInt64.max, forKey: "uint64")
            try prefs.set(3.141592653589793, forKey: "double")
            try prefs.set(Float(1.5), forKey: "float")
            try prefs.set("héllo, wörld 🌍", forKey: "string")
            try prefs.set("", forKey: "empty string")
            try prefs.set(date, forKey: "date")
            try prefs.set(Data([0, 1, 2, 255]), forKey: "data")
            try prefs.set(Data(), forKey: "empty data")
            try prefs.set(url, forKey: "url")
            try prefs.set(uuid, forKey: "uuid")
            try prefs.set([1, 2, 3], forKey: "array")
            try prefs.set(["a": [1.5], "b": []], forKey: "dictionary")
            try prefs.set([["x": "y"]], forKey: "nested")
            prefs[Preferences.Key<Profile?>("profile", default: nil)] = Profile(name: "Ada", age: 36)
        }
        #expect(prefs.value(forKey: "bool", as: Bool.self) == true)
        #expect(prefs.value(forKey: "int", as: Int.self) == Int.min)
        #expect(prefs.value(forKey: "int8", as: Int8.self) == -8)
        #expect(prefs.value(forKey: "int16", as: Int16.self) == -16)
        #expect(prefs.value(forKey: "int32", as: Int32.self) == Int32.max)
        #expect(prefs.value(forKey: "int64", as: Int64.self) == Int64.min)
        #expect(prefs.value(forKey: "uint", as: UInt.self) == UInt.max)
        #expect(prefs.value(forKey: "uint8", as: UInt8.self) == 255)
        #expect(prefs.value(forKey: "uint16", as: UInt16.self) == UInt16.max)
        #expect(prefs.value(forKey: "uint32", as: UInt32.self) == UInt32.max)
        #expect(prefs.value(forKey: "uint64", as: UInt64.self) == UInt64.max)
        #expect(prefs.value(forKey: "double", as: Double.self) == 3.141592653589793)
        #expect(prefs.value(forKey: "float", as: Float.self) == 1.5)
        #expect(prefs.string(forKey: "string") == "héllo, wörld 🌍")
        #expect(prefs.string(forKey: "empty string") == "")
        #expect(prefs.value(forKey: "date", as: Date.self) == date)
        #expect(prefs.data(forKey: "data") == Data([0, 1, 2, 255]))
        #expect(prefs.data(forKey: "empty data") == Data())
        #expect(prefs.url(forKey: "url") == url)
        #expect(prefs.value(forKey: "uuid", as: UUID.self) == uuid)
        #expect(prefs.value(forKey: "array", as: [Int].self) == [1, 2, 3])
        #expect(prefs.value(forKey: "dictionary", as: [String: [Double]].self) == ["a": [1.5], "b": []])
        #expect(prefs.value(forKey: "nested", as: [[String: String]].self) == [["x": "y"]])
        #expect(prefs[Preferences.Key<Profile?>("profile", default: nil)] == Profile(name: "Ada", age: 36))
        #expect(prefs.keys.count == 24)
        #expect(prefs.recoveryReport == nil)
    }

    @Test func typedKeysReadDefaultsAndStore() throws {
        let volume = Preferences.Key("volume", default: 0.8)
        let name = Preferences.Key<String?>("name", default: nil)
        let prefs = try reopened { prefs in
            #expect(prefs[volume] == 0.8)
            prefs[volume] = 0.25
            prefs[name] = "Ada"
        }
        #expect(prefs[volume] == 0.25)
        #expect(prefs[name] == "Ada")
        #expect(prefs.object(forKey: "volume") == .double(0.25))
    }

    @Test func nilRemoves() throws {
        let name = Preferences.Key<String?>("name", default: nil)
        let prefs = try reopened { prefs in
            prefs[name] = "Ada"
            try prefs.set(1, forKey: "a")
            try prefs.set(2, forKey: "b")
            try prefs.set(3, forKey: "c")
            prefs[name] = nil
            try prefs.removeValue(forKey: "a")
            try prefs.removeValue(forKey: "b")
        }
        #expect(prefs[name] == nil)
        #expect(prefs.object(forKey: "name") == nil)
        #expect(prefs.keys == ["c"])
    }

    @Test func unsupportedValuesAreRejectedAndNothingIsStored() throws {
        let prefs = try Preferences(url: file)
        try prefs.set("kept", forKey: "k")
        #expect(throws: StashError.self) { try prefs.set(try PreferenceValue(any: NSObject()), forKey: "k") }
        #expect(throws: StashError.self) { try prefs.set(try PreferenceValue(any: [1, NSObject()] as [Any]), forKey: "k") }
        #expect(throws: StashError.self) { try prefs.set([1, nil] as [Int?], forKey: "k") }
        do {
            try prefs.set(try PreferenceValue(any: NSObject()), forKey: "k")
        } catch let error as StashError {
            #expect(error.code == .unsupportedValue)
        }
        let infinite = Preferences.Key<[String: Double]?>("json", default: nil)
        struct Wrapper: Codable, Sendable { var value: Double }
        let wrapper = Preferences.Key<Wrapper?>("wrapper", default: nil)
        #expect(throws: StashError.self) { try prefs.set(Wrapper(value: .infinity), for: wrapper) }
        #expect(throws: StashError.self) { try prefs.set("x", forKey: "") }
        try prefs.set(["a": 1.0], for: infinite)
        #expect(prefs.string(forKey: "k") == "kept")
        #expect(prefs.object(forKey: "wrapper") == nil)
    }

    @Test func readingAsAnotherTypeGivesTheDefaultOrATypedError() throws {
        let prefs = try Preferences(url: file)
        try prefs.set("not a number", forKey: "count")
        let count = Preferences.Key("count", default: 7)
        #expect(prefs[count] == 7)
        #expect(throws: StashError.self) { try prefs.value(for: count) }
        #expect(prefs.integer(forKey: "count") == 0)
    }
}
