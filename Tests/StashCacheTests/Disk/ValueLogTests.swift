import Foundation
@testable import StashCache
import StashCore
import StashTestSupport
import Testing

/// The value log's records and segments, on real files: a record reads back only whole and
/// only as its own key's; a writer's log keeps exactly the committed bytes; no read of a
/// crafted location allocates more than the segment holds.
struct ValueLogTests {
    let folder = TemporaryFolder("valuelog")
    var values: URL { folder.url.appendingPathComponent("values", isDirectory: true) }

    static func record(metadata: Data? = Data("etag".utf8), sliding: Double? = nil) -> DiskRecord {
        DiskRecord(size: 0, file: nil, created: 1_000, accessed: 1_000, expires: 2_000, sliding: sliding, metadata: metadata)
    }

    /// Appends one record of `key` and returns its location.
    func append(_ log: ValueLog, _ key: String, _ value: Data, limit: Int = ValueLog.segmentLimit) throws -> ValueLocation {
        var bytes: [UInt8] = []
        let span = ValueLogRecord.append(key: key, Self.record(), value: value, to: &bytes)
        let (segment, offset) = try log.append(bytes, limit: limit)
        return ValueLocation(segment: segment, offset: offset, span: span)
    }

    func read(_ log: ValueLog, _ location: ValueLocation, _ key: String?) -> ValueLogRecord? {
        guard let key else {
            if case .record(let record) = log.read(location, key: nil) { return record }
            return nil
        }
        var bytes = key
        return bytes.withUTF8 { utf8 in
            if case .record(let record) = log.read(location, key: utf8) { return record }
            return nil
        }
    }

    @Test func recordsRoundTripWithTheirDatesAndMetadata() throws {
        for (metadata, sliding) in [(Data("etag".utf8), nil), (Data(), 60), (nil, nil)] as [(Data?, Double?)] {
            var bytes: [UInt8] = []
            let span = ValueLogRecord.append(key: "ключ", Self.record(metadata: metadata, sliding: sliding), value: .filled(7, 300), to: &bytes)
            #expect(span == bytes.count && span == ValueLogRecord.headerSize + "ключ".utf8.count + (metadata?.count ?? 0) + 300)
            let decoded = try #require(bytes.withUnsafeBytes { ValueLogRecord.decode($0, key: nil) })
            #expect(decoded.value == .filled(7, 300) && decoded.metadata == metadata && decoded.sliding == sliding)
            #expect(decoded.created == 1_000 && decoded.expires == 2_000)
        }
    }

    /// Every single flipped bit, a length that does not add up, a short read and another key
    /// read as no record.
    @Test func aDamagedOrForeignRecordIsNoRecord() {
        var bytes: [UInt8] = []
        ValueLogRecord.append(key: "k", Self.record(), value: .filled(1, 20), to: &bytes)
        for bit in 0..<(bytes.count * 8) {
            var damaged = bytes
            damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(damaged.withUnsafeBytes { ValueLogRecord.decode($0, key: nil) } == nil, "bit \(bit)")
        }
        #expect(bytes.dropLast().withUnsafeBytes { ValueLogRecord.decode($0, key: nil) } == nil)
        #expect((bytes + [0]).withUnsafeBytes { ValueLogRecord.decode($0, key: nil) } == nil)
        #expect(bytes.withUnsafeBytes { raw in "j".utf8CString.dropLast().map(UInt8.init).withUnsafeBufferPointer { ValueLogRecord.decode(raw, key: $0) } } == nil)
        #expect(bytes.withUnsafeBytes { raw in [UInt8]("k".utf8).withUnsafeBufferPointer { ValueLogRecord.decode(raw, key: $0) } } != nil)
    }

    /// Appends past the limit start a new segment; every record reads back by its location.
    @Test func appendsFillSegmentsInTurnAndReadBack() throws {
        let log = ValueLog(folder: values, isWriter: true)
        try log.reconcile(committed: [:])
        var locations: [(String, ValueLocation)] = []
        for index in 0..<50 {
            locations.append(("k\(index)", try append(log, "k\(index)", .filled(UInt8(index), 100), limit: 1_000)))
        }
        #expect(Set(locations.map(\.1.segment)).count > 5)
        for (index, (key, location)) in locations.enumerated() {
            #expect(read(log, location, key)?.value == .filled(UInt8(index), 100))
            #expect(read(log, location, "other") == nil)
        }
        let reader = ValueLog(folder: values, isWriter: false)
        #expect(read(reader, locations[20].1, "k20")?.value == .filled(20, 100))
    }

    /// A record larger than the read buffer (64 KB) reads whole into one of its own, and the
    /// small reads after it are whole too.
    @Test func aLargeRecordReadsWholeAndSmallOnesAfterIt() throws {
        let log = ValueLog(folder: values, isWriter: true)
        try log.reconcile(committed: [:])
        let small = try append(log, "small", .filled(1, 100))
        let large = try append(log, "large", .filled(2, 300_000))
        #expect(read(log, large, "large")?.value == .filled(2, 300_000))
        #expect(read(log, small, "small")?.value == .filled(1, 100))
        #expect(read(log, large, "large")?.value == .filled(2, 300_000))
    }

    /// Reopening cuts every segment back to its committed end and deletes the files no
    /// committed segment names (a segment of an interrupted commit, a stray file).
    @Test func reconcilingKeepsExactlyTheCommittedBytes() throws {
        let log = ValueLog(folder: values, isWriter: true)
        try log.reconcile(committed: [:])
        let kept = try append(log, "kept", .filled(1, 100), limit: 200)
        let cut = try append(log, "cut", .filled(2, 100), limit: 200)
        let other = try append(log, "other", .filled(3, 100), limit: 200)
        #expect(kept.segment == cut.segment && other.segment == kept.segment + 1)
        try Data("stray".utf8).write(to: values.appendingPathComponent("notes.txt"))
        log.close()

        let reopened = ValueLog(folder: values, isWriter: true)
        try reopened.reconcile(committed: [kept.segment: kept.offset + kept.span])
        #expect(try FileManager.default.contentsOfDirectory(atPath: values.path) == ["\(kept.segment).log"])
        #expect(try FileStore.size(of: values.appendingPathComponent("\(kept.segment).log")) == UInt64(kept.span))
        #expect(read(reopened, kept, "kept")?.value == .filled(1, 100))
        #expect(read(reopened, cut, "cut") == nil && read(reopened, other, "other") == nil)
        // The next append goes where the cut record was.
        #expect(try append(reopened, "next", .filled(4, 10)) .offset == cut.offset)
    }

    /// Locations from a crafted manifest: past the end, in no segment, a span of a gigabyte
    /// (refused before a buffer that large is made), a span that is not the record's.
    @Test func craftedLocationsReadAsGone() throws {
        let log = ValueLog(folder: values, isWriter: true)
        try log.reconcile(committed: [:])
        let location = try append(log, "k", .filled(1, 100))
        let crafted = [
            ValueLocation(segment: location.segment, offset: 1 << 31, span: 100),
            ValueLocation(segment: 77, offset: 0, span: location.span),
            ValueLocation(segment: location.segment, offset: 0, span: 1 << 30),
            ValueLocation(segment: location.segment, offset: 0, span: location.span - 1),
            ValueLocation.invalid,
        ]
        for location in crafted {
            guard case .gone = log.read(location, key: nil) else {
                Issue.record("\(location) did not read as gone")
                continue
            }
        }
        #expect(ValueLocation(packed: -1, span: 100) == nil && ValueLocation(packed: 1 << 32, span: 3) == nil)
        #expect(read(log, location, "k")?.value == .filled(1, 100))
    }

    /// A segment that cannot be opened now (out of descriptors) is unreadable, not gone: the
    /// value may be whole.
    @Test func aSegmentThatCannotBeOpenedNowIsUnreadableNotGone() throws {
        let log = ValueLog(folder: values, isWriter: true)
        try log.reconcile(committed: [:])
        let location = try append(log, "k", .filled(1, 100))
        log.close()
        let plan = FaultInjection.arm(folder: values.path, failing: 1, of: .open, with: EMFILE)
        defer { plan.disarm() }
        guard case .unreadable(let error) = log.read(location, key: nil) else {
            Issue.record("an open failing with EMFILE did not read as unreadable")
            return
        }
        #expect(error.posixCode == EMFILE)
        plan.disarm()
        #expect(read(log, location, "k")?.value == .filled(1, 100))
    }
}
