import Foundation
import StashCore

/// The memory-mapped file of a preferences log: a header, then records.
///
/// Header of format version 3 (128 bytes, little-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `STASHPRF` |
/// | 8 | 4 | format version (3) |
/// | 16 | 8 | generation: +1 for each compaction |
/// | 48 | 4 | CRC-32 of bytes 0..<48 (every version from 2 keeps it here) |
/// | 56 | 36 | commit slot A |
/// | 92 | 36 | commit slot B |
///
/// A commit slot describes the log as of one commit: change counter (8; +1 for each
/// commit, by any process), end (8; just past the last acknowledged byte), open group's
/// start (8) and CRC-32 (4) (see ``Record``), retired (4; nonzero once a compaction replaced
/// this file), and the slot's own CRC-32 of its first 32 bytes (4). A commit writes the slot
/// that is *not* the current one; the current slot is the intact one with the higher
/// counter. So a commit torn by a crash (a SIGKILL between two stores, a power cut between
/// two pages) leaves the previous commit intact, and the fixed part of the header is never
/// rewritten after creation.
///
/// Versions 1 and 2 (read, never written: their logs migrate at the first write) have a
/// 64-byte header: magic, version, generation at 16, change counter at 24, end at 32,
/// retired at 40, and (version 2) the CRC-32 of bytes 0..<48 at 48.
///
/// The file is always allocated for real (posix_fallocate) before the mapping covers it, so
/// a full disk is an error at growth time, never a SIGBUS on a store into the mapping.
/// Not thread-safe: the engine uses it under its lock, and under the suite's file lock for
/// anything another process could see.
final class LogFile {
    static let headerSize = 128
    static let legacyHeaderSize = 64
    static let version: UInt32 = 3
    static let checksumOffset = 48
    static let minimumSize = 16 * 1024
    private static let magic = Array("STASHPRF".utf8)
    private static let slotOffsets = [56, 92]
    private static let slotChecksummed = 32

    /// What one commit says about the log.
    struct Commit: Equatable {
        var counter: UInt64
        /// Just past the last acknowledged byte.
        var end: Int
        /// Where the open record group (the records after the last group end) starts.
        var groupStart: Int
        /// CRC-32 of the open group's bytes, `groupStart..<end`.
        var groupCRC: UInt32
        var retired = false
    }

    var url: URL
    private(set) var fd: Int32
    private(set) var base: UnsafeMutableRawPointer?
    private(set) var mappedSize = 0

    /// Opens (creating it when missing, owner-only) the file at `url` and maps it whole.
    init(url: URL, exclusive: Bool = false) throws {
        self.url = url
        let flags = O_RDWR | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : 0)
        let fd = SystemCalls.open(url.path, flags, 0o600)
        guard fd >= 0 else { throw StashError.posix("open", path: url.path) }
        self.fd = fd
        do { try remap() } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Unmaps and closes the file. Idempotent.
    func close() {
        unmap()
        if fd >= 0 { SystemCalls.close(fd) }
        fd = -1
    }

    /// The file's size on disk.
    func fileSize() throws -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StashError.posix("fstat", path: url.path) }
        return Int(info.st_size)
    }

    /// Maps the whole file again, after it grew (here or in another process).
    func remap() throws {
        let size = try fileSize()
        guard size != mappedSize || base == nil else { return }
        unmap()
        guard size > 0 else { return }
        let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let address, address != MAP_FAILED else { throw StashError.posix("mmap", path: url.path) }
        base = address
        mappedSize = size
    }

    private func unmap() {
        if let base { munmap(base, mappedSize) }
        base = nil
        mappedSize = 0
    }

    /// Grows the file to at least `size` bytes with real blocks, then maps it.
    ///
    /// - throws: ``/StashCore/StashError/Code/diskFull`` when the disk has no room; the file and its
    ///   mapping are then as they were.
    func grow(to size: Int) throws {
        let current = try fileSize()
        guard size > current else { return try remap() }
        let status = FileStore.allocate(fd, from: current, to: size, path: url.path)
        if status != 0 {
            _ = SystemCalls.truncate(fd, to: current, path: url.path)
            throw StashError.posix(status, "allocate \(size) bytes", path: url.path)
        }
        try remap()
    }

    /// Grows the file (doubling) until it has at least `size` bytes.
    func ensureRoom(_ size: Int) throws {
        guard size > mappedSize else { return }
        var target = max(mappedSize, LogFile.minimumSize)
        while target < size { target *= 2 }
        try grow(to: target)
    }

    // MARK: Header

    /// Whether the file starts with the magic bytes of a preferences log.
    var hasMagic: Bool {
        guard let base, mappedSize >= LogFile.headerSize else { return false }
        return LogFile.magic.withUnsafeBytes { memcmp(base, $0.baseAddress!, 8) == 0 }
    }

    /// Whether the checksum of the header's fixed part matches it.
    var hasValidChecksum: Bool {
        guard let base, mappedSize >= LogFile.headerSize else { return false }
        return header(LogFile.checksumOffset, as: UInt32.self) == CRC32.checksum(base, count: LogFile.checksumOffset)
    }

    /// The checksum field of the header's fixed part, as stored.
    var storedChecksum: UInt32 { header(LogFile.checksumOffset, as: UInt32.self) }

    var version: UInt32 { header(8, as: UInt32.self) }

    var generation: UInt64 { header(16, as: UInt64.self) }

    /// Where the records of a log of `version` start.
    static func recordsStart(version: UInt32) -> Int {
        version >= 3 ? headerSize : legacyHeaderSize
    }

    /// The commit the engine works from: loaded by ``loadCommit()``, chosen with
    /// ``adopt(_:)``, or last published.
    private(set) var current = Commit(counter: 0, end: 0, groupStart: 0, groupCRC: 0)
    /// The slot that holds ``current`` (format version 3).
    private var currentSlot = 0

    /// Reads the current commit: the intact slot with the higher counter (version 3), or the
    /// fields of a version 1 or 2 header.
    ///
    /// - returns: `false` when neither slot of a version 3 header is intact.
    @discardableResult
    func loadCommit() -> Bool {
        guard version >= 3 else {
            current = Commit(
                counter: header(24, as: UInt64.self), end: Int(clamping: header(32, as: UInt64.self)),
                groupStart: Int(clamping: header(32, as: UInt64.self)), groupCRC: 0, retired: header(40, as: UInt64.self) != 0
            )
            return true
        }
        guard let newest = intactCommits().first else { return false }
        adopt(newest)
        return true
    }

    /// The intact commit slots of a version 3 header, newest first.
    func intactCommits() -> [(slot: Int, commit: Commit)] {
        var result: [(slot: Int, commit: Commit)] = []
        for slot in 0..<2 {
            if let commit = readSlot(slot) { result.append((slot, commit)) }
        }
        return result.sorted { $0.commit.counter > $1.commit.counter }
    }

    /// Makes `choice` (one of ``intactCommits()``) the current commit: the next publish
    /// writes the other slot.
    func adopt(_ choice: (slot: Int, commit: Commit)) {
        currentSlot = choice.slot
        current = choice.commit
    }

    /// A number that changes with every commit, by any process: read without a checksum
    /// (one or two loads), for noticing cheaply that another process wrote. A torn value
    /// only costs a catch-up under the file lock, where ``loadCommit()`` reads properly.
    @inline(__always)
    var changeCounter: UInt64 {
        guard let base, mappedSize >= LogFile.headerSize else { return 0 }
        func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        guard UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) >= 3 else { return word(24) }
        return max(word(56), word(92))
    }

    var end: Int { current.end }

    /// The counter of the next commit: above the current one and above any counter a torn
    /// commit left in the other slot, so that every process that saw that one sees this one
    /// as a change.
    var nextCounter: UInt64 { max(current.counter, changeCounter) &+ 1 }

    var isRetired: Bool { current.retired }

    /// Publishes a commit: the slot that is not current is written, its checksum last, and
    /// becomes current. (Versions 1 and 2: the header's fields, then its checksum.)
    @inline(__always)
    func publish(_ commit: Commit) {
        current = commit
        guard version >= 3 else {
            setHeader(32, UInt64(commit.end))
            setHeader(24, commit.counter)
            setHeader(40, UInt64(commit.retired ? 1 : 0))
            seal()
            return
        }
        currentSlot = 1 - currentSlot
        let offset = LogFile.slotOffsets[currentSlot]
        // The end goes last but for the checksum: a commit torn before it still shows the
        // end of two commits ago (so it claims nothing), one torn after it has every field
        // right (so ``unsealedCommit()`` can verify it against the records).
        setHeader(offset + 16, UInt64(commit.groupStart))
        setHeader(offset + 24, commit.groupCRC)
        setHeader(offset + 28, UInt32(commit.retired ? 1 : 0))
        setHeader(offset, commit.counter)
        setHeader(offset + 8, UInt64(commit.end))
        guard let base else { return }
        setHeader(offset + LogFile.slotChecksummed, CRC32.checksum(base + offset, count: LogFile.slotChecksummed))
    }

    /// Marks the file replaced by a compaction (or not), counting it as a change.
    func setRetired(_ retired: Bool) {
        var commit = current
        commit.retired = retired
        commit.counter = nextCounter
        publish(commit)
    }

    /// Writes a fresh header for an empty log in the current format.
    func writeHeader(generation: UInt64, changeCounter: UInt64) {
        guard let base else { return }
        memset(base, 0, LogFile.headerSize)
        LogFile.magic.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: 8) }
        setHeader(8, LogFile.version)
        setHeader(16, generation)
        seal()
        currentSlot = 1
        publish(Commit(counter: changeCounter, end: LogFile.headerSize, groupStart: LogFile.headerSize, groupCRC: 0))
    }

    /// The fields of the slot that is not current, when its checksum fails (a commit torn
    /// by a crash, or a damaged slot): what they claim, to be verified against the records
    /// before anything trusts them.
    func unsealedCommit() -> Commit? {
        let slot = 1 - currentSlot
        guard version >= 3, readSlot(slot) == nil else { return nil }
        return readSlot(slot, checked: false)
    }

    /// The commit in `slot` when its checksum holds (or, unchecked, whatever it holds).
    private func readSlot(_ slot: Int, checked: Bool = true) -> Commit? {
        guard let base, mappedSize >= LogFile.headerSize else { return nil }
        let offset = LogFile.slotOffsets[slot]
        guard !checked || header(offset + LogFile.slotChecksummed, as: UInt32.self)
            == CRC32.checksum(base + offset, count: LogFile.slotChecksummed) else { return nil }
        let end = header(offset + 8, as: UInt64.self)
        let groupStart = header(offset + 16, as: UInt64.self)
        guard end <= UInt64(Int.max), groupStart <= end, groupStart >= UInt64(LogFile.headerSize) else { return nil }
        return Commit(
            counter: header(offset, as: UInt64.self), end: Int(end), groupStart: Int(groupStart),
            groupCRC: header(offset + 24, as: UInt32.self), retired: header(offset + 28, as: UInt32.self) != 0
        )
    }

    /// Rewrites the checksum of the header's fixed part. A version 1 header has none (its
    /// readers ignore the bytes where it goes).
    @inline(__always)
    private func seal() {
        guard let base, mappedSize >= LogFile.headerSize else { return }
        setHeader(LogFile.checksumOffset, CRC32.checksum(base, count: LogFile.checksumOffset))
    }

    @inline(__always)
    private func header<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
        guard let base, mappedSize >= LogFile.headerSize else { return 0 }
        return T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    @inline(__always)
    private func setHeader<T: FixedWidthInteger>(_ offset: Int, _ value: T) {
        guard mappedSize >= LogFile.headerSize else { return }
        base?.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
    }

    // MARK: Durability

    /// Flushes the mapping's dirty pages (and with `metadata`, the file's size and blocks)
    /// to the device.
    ///
    /// On Darwin `msync` stops at the drive's cache: an `F_FULLFSYNC` follows it every time
    /// (``SystemCalls/fsync(_:path:)``), so that what this returns survives a power cut there
    /// too. On Linux `msync(MS_SYNC)` writes the pages through, and `fsync` is only needed
    /// for the metadata.
    func sync(metadata: Bool) throws {
        if let base, SystemCalls.msync(base, mappedSize, path: url.path) != 0 {
            throw StashError.posix("msync", path: url.path)
        }
        #if canImport(Darwin)
        let needsFileSync = true
        #else
        let needsFileSync = metadata
        #endif
        if needsFileSync, SystemCalls.fsync(fd, path: url.path) != 0 { throw StashError.posix("fsync", path: url.path) }
    }
}

