import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// Damage to the header and to records in the middle of a log: detected by checksums,
/// salvaged around, reported exactly, the damaged file kept aside.
@Suite struct LogDamageTests {
    let folder = TemporaryFolder("prefs-damage")
    var file: URL { folder.file("damage.stashprefs") }

    /// Writes `count` keys ("key-<i>" = "value <i>"), closes, returns the file's bytes.
    func writeKeys(_ count: Int) throws -> Data {
        let prefs = try Preferences(url: file)
        for i in 0..<count { try prefs.set("value \(i)", forKey: "key-\(i)") }
        prefs.close()
        return try FileStore.read(file)
    }

    /// Where record `index` of `writeKeys` starts, and its length.
    func recordRange(_ index: Int) throws -> Range<Int> {
        var offset = LogFile.headerSize
        var encoder = RecordEncoder()
        for i in 0...index {
            try encoder.encode(.set, key: "key-\(i)", value: .string("value \(i)"), expiry: nil)
            if i < index { offset += encoder.count }
        }
        return offset..<(offset + encoder.count)
    }

    func expectAllKeys(_ prefs: Preferences, _ count: Int, except missing: Set<Int> = []) {
        #expect(prefs.keys.count == count - missing.count)
        for i in 0..<count where !missing.contains(i) {
            #expect(prefs.string(forKey: "key-\(i)") == "value \(i)", "key-\(i)")
        }
    }

    @Test func everyFlippedBitOfTheVersionFieldIsSalvagedWithNothingLost() throws {
        let count = 50
        let original = try writeKeys(count)
        for bit in 0..<32 {
            var bytes = original
            bytes[8 + bit / 8] ^= UInt8(1 << (bit % 8))
            try FileStore.write(bytes, to: file)

            let prefs = try Preferences(url: file)
            let report = try #require(prefs.recoveryReport, "bit \(bit)")
            #expect(report.droppedBytes == 0, "bit \(bit)")
            #expect(report.keptRecords == count, "bit \(bit)")
            #expect(report.damagedKeys.isEmpty)
            #expect(report.reason.contains("header"), "bit \(bit): \(report.reason)")
            let aside = try #require(report.movedAside)
            #expect(try FileStore.read(aside) == bytes, "the damaged file is kept as it was")
            expectAllKeys(prefs, count)
            try prefs.set("after", forKey: "after")
            prefs.close()

            let again = try Preferences(url: file)
            #expect(again.recoveryReport == nil, "bit \(bit)")
            #expect(again.string(forKey: "after") == "after")
            again.close()
            try FileStore.write(original, to: file)
        }
    }

    @Test func aFlippedEndFieldReportsNothingLost() throws {
        let count = 40
        var bytes = try writeKeys(count)
        bytes[32 + 3] ^= 0x80  // the end's bit 31: "2147483648 bytes" before the checksum
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.droppedBytes == 0)
        #expect(report.keptRecords == count)
        #expect(report.movedAside != nil)
        expectAllKeys(prefs, count)
    }

    @Test func aDamagedMagicIsSalvagedToo() throws {
        var bytes = try writeKeys(30)
        bytes[0] ^= 0x01
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.keptRecords == 30)
        #expect(report.droppedBytes == 0)
        expectAllKeys(prefs, 30)
    }

    @Test func aZeroLengthFileIsReported() throws {
        try FileStore.write(Data(), to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.droppedBytes == 0)
        #expect(report.keptRecords == 0)
        #expect(report.reason.contains("empty"))
        try prefs.set(1, forKey: "one")
        prefs.close()
        #expect(try Preferences(url: file).recoveryReport == nil)
    }

    @Test func aNewFileHasNoReport() throws {
        #expect(try Preferences(url: file).recoveryReport == nil)
    }

    @Test func aBadByteInRecord10Of600LosesOnlyThatRecord() throws {
        let seed: UInt64 = 0x5EED_0010
        print("LogDamageTests seed \(seed)")
        var generator = SeededGenerator(seed: seed)
        let count = 600
        var bytes = try writeKeys(count)
        let record = try recordRange(10)
        let position = Int.random(in: record, using: &generator)
        bytes[position] ^= UInt8.random(in: 1...255, using: &generator)
        try FileStore.write(bytes, to: file)

        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.keptRecords == count - 1)
        #expect(report.damageOffset == record.lowerBound)
        #expect(report.droppedBytes == record.count)
        let aside = try #require(report.movedAside)
        #expect(try FileStore.read(aside) == bytes)
        expectAllKeys(prefs, count, except: [10])
        prefs.close()

        // The log was rewritten without the damage: the next open is clean.
        let again = try Preferences(url: file)
        #expect(again.recoveryReport == nil)
        expectAllKeys(again, count, except: [10])
    }

    @Test func aDamagedValueNamesItsKey() throws {
        let count = 20
        var bytes = try writeKeys(count)
        let record = try recordRange(5)
        bytes[record.upperBound - 1] ^= 0x20  // the last byte of "value 5"
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.damagedKeys == ["key-5"])
        #expect(report.description.contains("key-5"))
        expectAllKeys(prefs, count, except: [5])
    }

    @Test func severalDamagedRecordsAreEachSkipped() throws {
        let count = 100
        var bytes = try writeKeys(count)
        for index in [3, 40, 41, 77] { bytes[try recordRange(index).lowerBound + 2] ^= 0xFF }
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.keptRecords == count - 4)
        expectAllKeys(prefs, count, except: [3, 40, 41, 77])
    }
}
