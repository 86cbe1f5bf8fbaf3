import Foundation
import StashCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The memory-mapped file of a preferences log: a 64-byte header, then records.
///
/// Header (little-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `STASHPRF` |
/// | 8 | 4 | format version (2; 1 for logs written before compact records) |
/// | 16 | 8 | generation: +1 for each compaction |
/// | 24 | 8 | change counter: +1 for each append, by any process |
/// | 32 | 8 | end: offset just past the last acknowledged record |
/// | 40 | 8 | retired: nonzero once a compaction replaced this file |
/// | 48 | 4 | CRC-32 of bytes 0..<48 (from version 2; every later version keeps it here) |
///
/// Every change to the header rewrites its checksum, so a damaged header is recognised
/// instead of trusted (see ``PreferencesEngine/openLog(isReopen:)``).
///
/// The file is always allocated for real (posix_fallocate) before the mapping covers it, so
/// a full disk is an error at growth time, never a SIGBUS on a store into the mapping.
/// Not thread-safe: the engine uses it under its lock, and under the suite's file lock for
/// anything another process could see.
final class LogFile {
    static let headerSize = 64
    static let version: UInt32 = 2
    static let checksumOffset = 48
    static let minimumSize = 16 * 1024
    private static let magic = Array("STASHPRF".utf8)

    var url: URL
    private var fd: Int32
    private(set) var base: UnsafeMutableRawPointer?
    private(set) var mappedSize = 0

    /// Opens (creating it when missing, owner-only) the file at `url` and maps it whole.
    init(url: URL, exclusive: Bool = false) throws {
        self.url = url
        let flags = O_RDWR | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : 0)
        let fd = open(url.path, flags, 0o600)
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
    /// - throws: ``StashError/Code/diskFull`` when the disk has no room; the file and its
    ///   mapping are then as they were.
    func grow(to size: Int) throws {
        let current = try fileSize()
        guard size > current else { return try remap() }
        #if os(Linux)
        let status = posix_fallocate(fd, off_t(current), off_t(size - current))
        if status != 0 { throw StashError.posix(status, "allocate \(size) bytes", path: url.path) }
        #else
        // No posix_fallocate here: writing zeroes allocates the blocks just as well.
        let zeroes = [UInt8](repeating: 0, count: 64 * 1024)
        var offset = current
        while offset < size {
            let n = zeroes.withUnsafeBytes { pwrite(fd, $0.baseAddress, min($0.count, size - offset), off_t(offset)) }
            if n < 0 {
                let code = errno
                _ = ftruncate(fd, off_t(current))
                throw StashError.posix(code, "allocate \(size) bytes", path: url.path)
            }
            offset += n
        }
        #endif
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

    /// Whether the header's checksum matches its fields.
    var hasValidChecksum: Bool {
        guard let base, mappedSize >= LogFile.headerSize else { return false }
        return header(LogFile.checksumOffset, as: UInt32.self) == CRC32.checksum(base, count: LogFile.checksumOffset)
    }

    var version: UInt32 { header(8, as: UInt32.self) }

    var generation: UInt64 { header(16, as: UInt64.self) }

    var changeCounter: UInt64 { header(24, as: UInt64.self) }

    var end: Int { Int(clamping: header(32, as: UInt64.self)) }

    var isRetired: Bool { header(40, as: UInt64.self) != 0 }

    /// Publishes appended records: the end and the change counter, then the checksum.
    @inline(__always)
    func commit(end: Int, changeCounter: UInt64) {
        setHeader(32, UInt64(end))
        setHeader(24, changeCounter)
        seal()
    }

    /// Marks the file replaced by a compaction (or not), counting it as a change.
    func setRetired(_ retired: Bool) {
        setHeader(40, UInt64(retired ? 1 : 0))
        setHeader(24, changeCounter &+ 1)
        seal()
    }

    /// Writes a fresh header for an empty log in the current format.
    func writeHeader(generation: UInt64, changeCounter: UInt64) {
        guard let base else { return }
        memset(base, 0, LogFile.headerSize)
        LogFile.magic.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: 8) }
        setHeader(8, LogFile.version)
        setHeader(16, generation)
        setHeader(24, changeCounter)
        setHeader(32, UInt64(LogFile.headerSize))
        seal()
    }

    /// Rewrites the header's checksum. A version 1 header has none (its readers ignore the
    /// bytes where it goes).
    @inline(__always)
    private func seal() {
        guard let base, mappedSize >= LogFile.headerSize else { return }
        setHeader(LogFile.checksumOffset, CRC32.checksum(base, count: LogFile.checksumOffset))
    }

    @inline(__always)
    private func header<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
        guard let base, mappedSize >= LogFile.headerSize else { return 0 }
        return T(littleEndian: base.load(fromByteOffset: offset, as: T.self))
    }

    @inline(__always)
    private func setHeader<T: FixedWidthInteger>(_ offset: Int, _ value: T) {
        guard mappedSize >= LogFile.headerSize else { return }
        base?.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
    }

    // MARK: Durability

    /// Flushes the mapping's dirty pages and the file's metadata to the device.
    func sync(metadata: Bool) throws {
        if let base, msync(base, mappedSize, MS_SYNC) != 0 {
            throw StashError.posix("msync", path: url.path)
        }
        if metadata, fsync(fd) != 0 { throw StashError.posix("fsync", path: url.path) }
    }
}

