import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

@Suite struct CrashRecoveryTests {
    let folder = TemporaryFolder("prefs-crash")
    var file: URL { folder.file("crash.stashprefs") }

    @Test func everyAcknowledgedKeySurvivesSIGKILL() throws {
        var acknowledged: [String] = []
        for round in 0..<3 {
            let child = try ChildProcess.testHost("preferences.write-loop", file.path, "r\(round)")
            #expect(child.readLine() == "ready")
            // Kill at a different point each round.
            let target = 200 + round * 350
            var seen = 0
            while seen < target, let line = child.readLine() {
                guard line.hasPrefix("set ") else { continue }
                acknowledged.append(String(line.dropFirst(4)))
                seen += 1
            }
            child.kill()
            #expect(child.wait() == 128 + SIGKILL)
            // Lines printed after the ones read may still be in the pipe: they were acknowledged too.
            for line in child.readAllLines() where line.hasPrefix("set ") { acknowledged.append(String(line.dropFirst(4))) }

            let prefs = try Preferences(url: file)
            #expect(prefs.recoveryReport == nil)
            for key in acknowledged {
                let i = Int(key.split(separator: "-").last!)!
                #expect(prefs.value(forKey: key, as: Int.self) == i, "\(key)")
                #expect(prefs.string(forKey: key + ".text") == "\(key) is \(i)x")
            }
            prefs.close()
        }
        #expect(acknowledged.count >= 200 + 550 + 900)
    }

    /// Writes `count` keys, closes, and returns the file's bytes and the header's end.
    func writeKeys(_ count: Int) throws -> (bytes: Data, end: Int) {
        let prefs = try Preferences(url: file)
        for i in 0..<count { try prefs.set("value \(i)", forKey: "key-\(i)") }
        prefs.close()
        let bytes = try FileStore.read(file)
        return (bytes, LogLayout.newestCommit(bytes).commit.end)
    }

    func record(key: String, value: String) throws -> [UInt8] {
        var encoder = RecordEncoder()
        try encoder.encode(.set, key: key, value: .string(value), expiry: nil)
        return encoder.withBytes { Array($0) }
    }

    @Test func aTornFinalRecordIsCutAndEverythingBeforeItKept() throws {
        var (bytes, end) = try writeKeys(100)
        // A power cut after the header reached the disk but before all of the record did:
        // the newest commit covers the whole record, the disk holds half of it.
        let torn = try record(key: "torn", value: "this record is only half written")
        bytes.replaceSubrange(end..<(end + torn.count / 2), with: torn[0..<(torn.count / 2)])
        let newest = LogLayout.newestCommit(bytes)
        var group = CRC32(resuming: newest.commit.groupCRC)
        torn.withUnsafeBytes { group.update($0) }
        let other = LogLayout.slotOffsets.first { $0 != newest.offset }!
        LogLayout.setCommit(&bytes, slot: other, LogFile.Commit(
            counter: newest.commit.counter + 1, end: end + torn.count, groupStart: newest.commit.groupStart, groupCRC: group.value
        ))
        try FileStore.write(bytes, to: file)

        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.damageOffset == end)
        #expect(report.droppedBytes == torn.count)
        #expect(report.keptRecords == 100)
        #expect(report.reason.contains("torn"))
        #expect(prefs.keys.count == 100)
        #expect(prefs.string(forKey: "key-99") == "value 99")
        #expect(prefs.object(forKey: "torn") == nil)
        // The store is usable, and the next open is clean.
        try prefs.set("after", forKey: "after")
        prefs.close()
        let again = try Preferences(url: file)
        #expect(again.recoveryReport == nil)
        #expect(again.keys.count == 101)
    }

    /// A SIGKILL inside ``LogFile/publish(_:)`` after the slot's counter was written but
    /// before its end: the record after the current end was never acknowledged, so the open
    /// must not report it as a lost write.
    @Test func aCommitTornBeforeItsEndReportsNothingLost() throws {
        var (bytes, end) = try writeKeys(100)
        let newest = LogLayout.newestCommit(bytes)
        let other = LogLayout.slotOffsets.first { $0 != newest.offset }!
        let olderEnd = Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: other + 8, as: UInt64.self) })
        #expect(olderEnd < end)
        let unacknowledged = try record(key: "unacknowledged", value: "written, never committed")
        bytes.replaceSubrange(end..<(end + unacknowledged.count), with: unacknowledged)
        LogLayout.setCommit(&bytes, slot: other, LogFile.Commit(
            counter: newest.commit.counter + 1, end: olderEnd, groupStart: newest.commit.groupStart, groupCRC: 0
        ))
        bytes[other + 32] ^= 0xFF // the checksum was not written either
        try FileStore.write(bytes, to: file)

        let prefs = try Preferences(url: file)
        #expect(prefs.recoveryReport == nil)
        #expect(prefs.keys.count == 100)
        #expect(prefs.object(forKey: "unacknowledged") == nil)
        try prefs.set("after", forKey: "after")
        prefs.close()
        let again = try Preferences(url: file)
        #expect(again.recoveryReport == nil)
        #expect(again.keys.count == 101)
    }

    @Test func aCorruptLastRecordCostsOnlyThatRecord() throws {
        var (bytes, end) = try writeKeys(10)
        let last = try record(key: "key-9", value: "value 9")
        bytes[end - 2] ^= 0xFF
        try FileStore.write(bytes, to: file)

        // The commit before the last one does not cover the damaged byte: it stands.
        let prefs = try Preferences(url: file)
        #expect(prefs.recoveryReport?.keptRecords == 9)
        #expect(prefs.recoveryReport?.droppedBytes == last.count)
        #expect(prefs.recoveryReport?.damagedKeys == ["key-9"])
        #expect(prefs.keys.count == 9)
        #expect(prefs.object(forKey: "key-9") == nil)
        #expect(prefs.string(forKey: "key-8") == "value 8")
    }

    @Test func aTruncatedFileKeepsItsWholeRecords() throws {
        let (bytes, end) = try writeKeys(20)
        try FileStore.write(bytes.prefix(end - 3), to: file)
        // The commit before the last one ends before the cut: it stands.
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        #expect(report.keptRecords == 19)
        #expect(prefs.keys.count == 19)
        try prefs.set("again", forKey: "key-19")
        #expect(prefs.string(forKey: "key-19") == "again")
    }

    @Test func aFileThatIsNotALogIsMovedAsideNotDeleted() throws {
        let garbage = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try FileStore.write(garbage, to: file)
        let prefs = try Preferences(url: file)
        let report = try #require(prefs.recoveryReport)
        let aside = try #require(report.movedAside)
        #expect(try FileStore.read(aside) == garbage)
        #expect(prefs.keys.isEmpty)
        try prefs.set(1, forKey: "fresh")
        prefs.close()
        #expect(try Preferences(url: file).integer(forKey: "fresh") == 1)
    }

    @Test func aLogFromANewerFormatIsNotTouched() throws {
        var (bytes, _) = try writeKeys(1)
        // A newer version writes its header whole, checksum included.
        withUnsafeBytes(of: UInt32(99).littleEndian) { bytes.replaceSubrange(8..<12, with: $0) }
        let checksum = bytes.withUnsafeBytes { CRC32.checksum($0.baseAddress!, count: 48) }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(48..<52, with: $0) }
        try FileStore.write(bytes, to: file)
        let error = try #require(throws: StashError.self) { try Preferences(url: file) }
        #expect(error.code == .unsupportedVersion)
        #expect(error.reason.contains("format version 99"))
        #expect(try FileStore.read(file) == bytes)
    }
}

/// Process crashes at deterministic kill points: the child is killed (SIGKILL, by the seam)
/// at its first file call inside the folder, then its second, and so on through the writes,
/// the log's growth and a compaction, until a run ends without reaching the point.
@Suite struct PreferencesKillPointTests {
    @Test func aKillAtEveryCallOfACompactionLosesNothing() async throws {
        var killed = 0
        var duringCompaction = 0
        for point in 1...400 {
            let folder = TemporaryFolder("prefs-kill")
            let file = folder.file("churn.stashprefs")
            let child = try ChildProcess.testHost(
                "preferences.churn", file.path, "k", "yes",
                environment: [FaultInjection.killPointVariable: "any:\(point):\(folder.url.path)"]
            )
            let lines = await child.allLines()
            let status = await child.exitStatus()
            let prefs = try Preferences(url: file)
            defer { prefs.close() }
            if status == 0 {
                #expect(lines == ["churned", "done"])
                #expect(prefs.string(forKey: "k-after") == "after")
                break
            }
            #expect(status == 128 + SIGKILL, "kill point \(point): \(child.standardError())")
            killed += 1
            if lines.contains("churned") {
                // Every write before the compaction was acknowledged: none may be lost.
                duringCompaction += 1
                for i in 0..<300 {
                    #expect(prefs.object(forKey: "k-\(i)") == (i % 3 == 0 ? nil : .integer(Int64(2000 + i))), "kill point \(point): k-\(i)")
                }
                #expect([nil, "after"].contains(prefs.string(forKey: "k-after")))
            } else {
                // Killed while growing the log: each key shows one of the values it was given.
                for i in 0..<300 {
                    if case .integer(let value)? = prefs.object(forKey: "k-\(i)") {
                        #expect(value % 1000 == Int64(i) && value < 3000, "kill point \(point): k-\(i) = \(value)")
                    }
                }
            }
            // The next write after the crash succeeds.
            try prefs.set("next", forKey: "k-next")
        }
        print("preferences kill points: \(killed) calls killed, \(duringCompaction) of them in the compaction")
        #expect(duringCompaction >= 4)
    }
}
