import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// Damage to the header and to records in the middle of a log: detected by checksums,
/// salvaged around (a damaged group of records costs that group), reported exactly, the
/// damaged file kept aside.
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

    @Test func aFlippedCounterInTheLastCommitLosesNothing() throws {
        let count = 40
        var bytes = try writeKeys(count)
        let newest = LogLayout.newestCommit(bytes)
        bytes[newest.offset + 3] ^= 0x80  // the change counter: the slot's checksum fails
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        // The slot's fields still match the records they publish: it is sealed again.
        #expect(prefs.recoveryReport == nil)
        expectAllKeys(prefs, count)
        prefs.close()
        #expect(try Preferences(url: file).recoveryReport == nil)
    }

    @Test func aFlippedEndInTheLastCommitReportsTheLastWrite() throws {
        let count = 40
        var bytes = try writeKeys(count)
        let newest = LogLayout.newestCommit(bytes)
        let last = try #require(LogLayout.records(bytes).last)
        bytes[newest.offset + 8 + 3] ^= 0x80  // the end's bit 31: "2147483648 bytes" in format 2
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        // The commit before it stands: only the last write is gone, and named.
        #expect(report.droppedBytes == last.range.count)
        #expect(report.damageOffset == last.range.lowerBound)
        #expect(report.damagedKeys == ["key-\(count - 1)"])
        #expect(report.keptRecords == count - 1)
        expectAllKeys(prefs, count, except: [count - 1])
        try prefs.set("again", forKey: "key-\(count - 1)")
        prefs.close()
        let again = try Preferences(url: file)
        #expect(again.recoveryReport == nil)
        #expect(again.string(forKey: "key-\(count - 1)") == "again")
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

    @Test func aBadByteInRecord10Of600LosesOnlyItsGroup() throws {
        let seed: UInt64 = 0x5EED_0010
        print("LogDamageTests seed \(seed)")
        var generator = SeededGenerator(seed: seed)
        let count = 600
        var bytes = try writeKeys(count)
        let record = LogLayout.records(bytes)[10].range
        let group = LogLayout.group(ofRecord: 10, in: bytes)
        #expect(group.keys.count == Record.groupRecords)
        let position = Int.random(in: record, using: &generator)
        bytes[position] ^= UInt8.random(in: 1...255, using: &generator)
        try FileStore.write(bytes, to: file)

        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.keptRecords == count - group.keys.count)
        #expect(report.damageOffset == group.range.lowerBound)
        #expect(report.droppedBytes == group.range.count)
        // The keys before the bad byte still read; the report names no key outside the group.
        #expect(Array(report.damagedKeys.prefix(10)) == Array(group.keys.prefix(10)))
        #expect(Set(report.damagedKeys).isSubset(of: group.keys))
        let aside = try #require(report.movedAside)
        #expect(try FileStore.read(aside) == bytes)
        let lost = Set(group.keys.map { Int($0.dropFirst(4))! })
        expectAllKeys(prefs, count, except: lost)
        prefs.close()

        // The log was rewritten without the damage: the next open is clean.
        let again = try Preferences(url: file)
        #expect(again.recoveryReport == nil)
        expectAllKeys(again, count, except: lost)
    }

    /// Right after a compaction the commit before the newest used to be the empty log the
    /// compaction started from: damage in any group then made an open fall back to it and
    /// erase every record. Now both slots hold the compacted log, so the damage costs its group.
    @Test func aBadByteAfterACompactionLosesOnlyItsGroup() throws {
        let count = 200
        do {
            let prefs = try Preferences(url: file)
            for i in 0..<count { try prefs.set("value \(i)", forKey: "key-\(i)") }
            try prefs.compact()
            prefs.close()
        }
        var bytes = try FileStore.read(file)
        let record = LogLayout.records(bytes)[20].range
        let group = LogLayout.group(ofRecord: 20, in: bytes)
        bytes[record.lowerBound + record.count / 2] ^= 0x5A
        try FileStore.write(bytes, to: file)

        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.keptRecords == count - group.keys.count, "\(report.reason)")
        #expect(Set(report.damagedKeys).isSubset(of: group.keys))
        #expect(try FileStore.read(try #require(report.movedAside)) == bytes)
        expectAllKeys(prefs, count, except: Set(group.keys.map { Int($0.dropFirst(4))! }))
        prefs.close()
    }

    @Test func aDamagedValueNamesTheKeysOfItsGroup() throws {
        let count = 20
        var bytes = try writeKeys(count)
        let record = LogLayout.records(bytes)[5].range
        let group = LogLayout.group(ofRecord: 5, in: bytes)
        bytes[record.upperBound - 1] ^= 0x20  // the last byte of "value 5"
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.damagedKeys == group.keys)
        #expect(report.damagedKeys.contains("key-5"))
        #expect(report.description.contains("key-5"))
        expectAllKeys(prefs, count, except: Set(group.keys.map { Int($0.dropFirst(4))! }))
    }

    @Test func severalDamagedGroupsAreEachSkipped() throws {
        let count = 100
        var bytes = try writeKeys(count)
        let records = LogLayout.records(bytes)
        var lost = Set<Int>()
        for index in [3, 40, 41, 77] {
            lost.formUnion(LogLayout.group(ofRecord: index, in: bytes).keys.map { Int($0.dropFirst(4))! })
        }
        for index in [3, 40, 41, 77] { bytes[records[index].range.lowerBound + 2] ^= 0xFF }
        #expect(lost.count == 3 * Record.groupRecords)
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.keptRecords == count - lost.count)
        expectAllKeys(prefs, count, except: lost)
    }

    @Test func aDamagedGroupEndCostsOnlyItsGroup() throws {
        let count = 64
        var bytes = try writeKeys(count)
        let groupEnd = try #require(LogLayout.items(bytes).first { $0.kind == .groupEnd && $0.group == 1 })
        bytes[groupEnd.range.upperBound - 1] ^= 0x01  // the checksum of group 1
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.keptRecords == count - Record.groupRecords)
        expectAllKeys(prefs, count, except: Set(16..<32))
    }

    @Test func aDamagedOpenGroupIsCutAndTheRestKept() throws {
        let count = 20  // 16 in a closed group, 4 in the open one
        var bytes = try writeKeys(count)
        let commit = LogLayout.newestCommit(bytes).commit
        #expect(commit.groupStart < commit.end)
        // In record 17: the commit before the last one covers it too, so neither holds.
        bytes[LogLayout.records(bytes)[17].range.upperBound - 1] ^= 0x04
        try FileStore.write(bytes, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.movedAside == nil)
        #expect(report.damagedKeys == ["key-16", "key-17", "key-18", "key-19"])
        expectAllKeys(prefs, count, except: [16, 17, 18, 19])
        try prefs.set("after", forKey: "after")
        prefs.close()
        let again = try Preferences(url: file)
        #expect(again.recoveryReport == nil)
        #expect(again.keys.count == 17)
    }
}
