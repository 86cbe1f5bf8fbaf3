import Foundation
import StashCore

/// Where a record of the value log is: its segment, its offset in it, and its length.
///
/// The manifest keeps the first two in one integer (``packed``, column `loc`) and the
/// length beside it (column `span`).
struct ValueLocation: Hashable, Sendable {
    var segment: Int
    var offset: Int
    var span: Int

    /// A location no record has, for a row whose columns cannot name one: it reads as gone.
    static let invalid = ValueLocation(segment: 0, offset: 0, span: 0)

    /// The `loc` values of the records of `segment`.
    static func range(ofSegment segment: Int) -> Range<Int64> {
        Int64(segment) << 32 ..< Int64(segment + 1) << 32
    }

    /// `segment << 32 | offset`.
    var packed: Int64 { Int64(segment) << 32 | Int64(offset) }

    init(segment: Int, offset: Int, span: Int) {
        (self.segment, self.offset, self.span) = (segment, offset, span)
    }

    /// The location a manifest row names, `nil` when its columns cannot name one (a crafted
    /// or damaged row).
    init?(packed: Int64, span: Int64) {
        guard packed >= 0, span >= Int64(ValueLogRecord.headerSize), span <= Int64(Int32.max),
              let offset = Int(exactly: packed & 0xFFFF_FFFF)  // 32 bits do not fit a 32-bit `Int`
        else { return nil }
        self.init(segment: Int(packed >> 32), offset: offset, span: Int(span))
    }
}

/// The small values of a disk cache, one record each (``ValueLogRecord``), appended to
/// segment files (`values/<number>.log`) and read back with one `pread`. Segments are
/// opened without following a symbolic link (`O_NOFOLLOW`): a link planted in a segment's
/// place is never written through.
///
/// A read costs a system call and copies only the record, wherever it is: unlike rows in a
/// mapped manifest, the pages it reads stay in the system's file cache, not in the process's
/// resident memory, and a read in a large cache touches one page rather than a B-tree's.
///
/// **Writer.** Only the writer appends, on the cache's queue, always at the end of the
/// newest segment, which is sealed past ``segmentLimit`` bytes. A flush appends its records
/// before its manifest transaction commits, and the transaction records the segment's new
/// end: so a committed row always names bytes already written, and a crash leaves at most
/// bytes past the committed end, which the next writer cuts off (``reconcile(committed:)``).
/// Records are never written over; a replaced or removed value leaves dead bytes, which
/// compaction reclaims by copying a segment's live records to the newest one and deleting it.
///
/// **Readers.** The lock guards only the table of open segments (``Segment``): a read takes
/// its segment from the table and makes its `pread` outside the lock, so a read never waits
/// for an append's `pwrite` or a `fsync`, which also run outside it, nor for another read. A
/// segment's descriptor closes when the table and the last read holding it let it go: a
/// segment deleted by compaction is never read through a descriptor reused for another file,
/// and a read that took it before the deletion reads the records it held. A segment is opened
/// on its first read and kept open; the number of a committed segment is never reused (only
/// that of a segment no commit named, which nothing read).
final class ValueLog: @unchecked Sendable {
    /// An open segment file, shared by the table and the reads in flight; its descriptor
    /// closes when the last of them lets it go.
    private final class Segment: @unchecked Sendable {  // immutable
        let fd: Int32
        let path: String

        init(fd: Int32, path: String) {
            (self.fd, self.path) = (fd, path)
        }

        deinit { SystemCalls.close(fd) }
    }

    /// The folder of the segments.
    let folder: URL
    private let lock = Lock()
    private var descriptors: [Int: Segment] = [:]
    /// The writer's segment appended to, and where its next record goes (0 for a reader).
    private(set) var activeSegment = 0
    private(set) var activeEnd = 0
    /// The writer's segments and their ends, committed or written since.
    private var ends: [Int: Int] = [:]

    /// The bytes of the writer's segments (the ones committed, and appends since): what
    /// compaction weighs against the live bytes, without a manifest query.
    var size: Int { lock.withLock { ends.values.reduce(0, +) } }

    /// Whether this is the writer's log, whose descriptors can write.
    let isWriter: Bool

    /// The size past which the newest segment is sealed and the next append starts another.
    static let segmentLimit = 64 << 20

    /// The largest value a record holds; a larger one gets a file whatever the cache's
    /// ``DiskCache/Configuration/inlineThreshold``, so that a record's offset and length
    /// always fit a manifest row's `loc` and `span`.
    static let largestValue = 256 << 20

    /// The most bytes one ``append(_:limit:)`` takes: every offset must fit the 32 bits a
    /// manifest row keeps for it. Lowered by tests (before the first flush) to reach it with
    /// small values.
    var largestAppend = Int(Int32.max)

    /// The size past which a flush appends what it has gathered and gathers a new part: a
    /// segment, or less when ``largestAppend`` is lower.
    var partSize: Int { min(Self.segmentLimit, largestAppend / 2) }

    /// The most segments a read-only view keeps open; past it, it closes them all.
    static let readerDescriptors = 16

    /// The log in `folder`; a writer's (`isWriter`) also appends, once ``reconcile(committed:)``
    /// has told it the committed segments. A reader's opens segments as reads need them.
    init(folder: URL, isWriter: Bool) {
        self.folder = folder
        self.isWriter = isWriter
    }

    /// Makes the writer's segments those committed (`committed`: the manifest's `segment`
    /// table, each segment's committed end), when the writer opens or takes the folder back:
    /// creates the folder, deletes segment files no row can name (absent from `committed`, or
    /// not named as segments are), and cuts each segment back to its committed end, so that
    /// the bytes of commits a crash interrupted are gone. A segment found shorter than its
    /// committed end (bytes lost in a power cut) is left as it is: its missing records read
    /// as gone. Appends then go to the newest segment.
    func reconcile(committed: [Int: Int]) throws {
        try lock.withLock { () throws -> Void in
            descriptors.removeAll()
            try FileStore.createFolder(folder)
            for name in try FileStore.list(folder) {
                let path = folder.appendingPathComponent(name).path
                guard let segment = Self.segment(named: name), let end = committed[segment] else {
                    SystemCalls.unlink(path)
                    continue
                }
                var info = stat()
                guard lstat(path, &info) == 0 else { throw StashError.posix("stat", path: path) }
                // Not a file (a link or anything else in a segment's place): not the log's.
                // It goes, and the records rows name in it read as gone.
                guard (info.st_mode & S_IFMT) == S_IFREG else {
                    SystemCalls.unlink(path)
                    continue
                }
                if Int(info.st_size) > end {
                    let fd = SystemCalls.open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
                    guard fd >= 0 else { throw StashError.posix("open", path: path) }
                    defer { SystemCalls.close(fd) }
                    guard SystemCalls.truncate(fd, to: end, path: path) == 0 else { throw StashError.posix("truncate", path: path) }
                }
            }
            ends = committed
            if let newest = committed.keys.max() {
                (activeSegment, activeEnd) = (newest, committed[newest] ?? 0)
            } else {
                (activeSegment, activeEnd) = (1, 0)
            }
            // Opened now, as the manifest is: appends go on if the folder is deleted behind
            // the cache's back.
            _ = try descriptor(activeSegment, creating: true)
        }
    }

    /// Starts a new segment for the next append (compaction seals the newest one so that
    /// its dead bytes can be reclaimed too). Writer only, on the cache's queue.
    func seal() {
        lock.withLock {
            if activeEnd > 0 { (activeSegment, activeEnd) = (activeSegment + 1, 0) }
        }
    }

    deinit { close() }

    /// The segment number of the file `name`, `nil` when it is not a segment's name.
    static func segment(named name: String) -> Int? {
        guard name.hasSuffix(".log"), let number = Int(name.dropLast(4)), number > 0, "\(number).log" == name else { return nil }
        return number
    }

    func path(ofSegment segment: Int) -> String {
        folder.appendingPathComponent("\(segment).log").path
    }

    /// Appends `records` (whole records, one after another) at the end of the newest
    /// segment, first sealing it when it has reached `limit` bytes; returns where they
    /// start. Writer only, on the cache's queue.
    ///
    /// - throws: ``/StashCore/StashError/Code/diskFull`` and other write errors; the log's end
    ///   then stays where it was, and the next append writes over what this one left.
    func append(_ records: [UInt8], limit: Int = ValueLog.segmentLimit) throws -> (segment: Int, offset: Int) {
        guard records.count <= largestAppend else { throw StashError(.io, "a flush of \(records.count) bytes of records is too large for one segment", path: folder.path) }
        let (number, offset, segment) = try lock.withLock { () throws(StashError) -> (Int, Int, Segment) in
            if activeEnd >= limit || Int64(activeEnd) + Int64(records.count) >= Int64(1) << 32 {
                activeSegment += 1
                activeEnd = 0
            }
            return (activeSegment, activeEnd, try descriptor(activeSegment, creating: true))
        }
        // Written outside the lock: only the writer appends, and no read asks for bytes past
        // the end until a committed row names them.
        var written = 0
        while written < records.count {
            let count = records.withUnsafeBytes { bytes in
                SystemCalls.pwrite(segment.fd, bytes.baseAddress! + written, records.count - written, at: offset + written, path: segment.path)
            }
            if count < 0, errno == EINTR { continue }
            if count == 0 { throw StashError(.io, "write: no byte written", path: segment.path) }
            guard count > 0 else { throw StashError.posix("write", path: segment.path) }
            written += count
        }
        lock.withLock {
            activeEnd = offset + records.count
            ends[number] = activeEnd
        }
        return (number, offset)
    }

    /// What a read found.
    enum Read {
        case record(ValueLogRecord)
        /// No record of the key there: the segment or its bytes are gone, cut short, or not
        /// a record (lost in a power cut, written behind the cache's back).
        case gone
        /// The segment could not be read now (out of descriptors, an I/O error): the value
        /// may still be whole.
        case unreadable(StashError)
    }

    /// The record at `location`, when it is the record of `key` (any key when `nil`).
    func read(_ location: ValueLocation, key: UnsafeBufferPointer<UInt8>?) -> Read {
        guard location.segment > 0, location.span >= ValueLogRecord.headerSize else { return .gone }
        let segment: Segment
        do throws(StashError) {
            segment = try lock.withLock { () throws(StashError) -> Segment in try descriptor(location.segment, creating: false) }
        } catch {
            return error.code == .notFound ? .gone : .unreadable(error)
        }
        // A span from a crafted row must not make a huge buffer: past a small record's size,
        // the segment must hold it first.
        if location.span > Self.smallRecord {
            var info = stat()
            guard fstat(segment.fd, &info) == 0 else { return .unreadable(StashError.posix("stat", path: segment.path)) }
            guard location.offset + location.span <= Int(info.st_size) else { return .gone }
        }
        return withUnsafeTemporaryAllocation(byteCount: location.span, alignment: 16) { buffer -> Read in
            var done = 0
            while done < location.span {
                let count = SystemCalls.pread(segment.fd, buffer.baseAddress! + done, location.span - done, at: location.offset + done)
                if count < 0, errno == EINTR { continue }
                if count < 0 { return .unreadable(StashError.posix("read", path: segment.path)) }
                if count == 0 { return .gone }
                done += count
            }
            return ValueLogRecord.decode(UnsafeRawBufferPointer(buffer), key: key).map(Read.record) ?? .gone
        }
    }

    /// The size up to which a record is read without first checking that its segment holds
    /// it: a crafted span past it costs a `fstat`, not an allocation of its size.
    static let smallRecord = 1 << 16

    /// Writes the newest segment's bytes to the disk (`fsync`). Writer only, on the queue.
    /// The sync runs outside the lock: reads go on meanwhile.
    func sync() throws {
        let segment = try lock.withLock { () throws(StashError) -> Segment in try descriptor(activeSegment, creating: true) }
        guard SystemCalls.fsync(segment.fd, path: segment.path) == 0 else { throw StashError.posix("fsync", path: segment.path) }
    }

    /// Deletes segment `segment` (its live records copied elsewhere and committed). Writer only.
    /// A read that took the segment before keeps reading it until it is done.
    func remove(segment: Int) {
        lock.withLock {
            descriptors[segment] = nil
            ends[segment] = nil
        }
        SystemCalls.unlink(path(ofSegment: segment))
    }

    /// Closes every segment (each once the reads in flight on it are done). Reads after it
    /// open them again.
    func close() {
        lock.withLock { descriptors.removeAll() }
    }

    /// The open descriptor of `segment`, opened now if it is not (for reading and writing in
    /// the writer's log, and created when `creating`). Under the lock.
    private func descriptor(_ segment: Int, creating: Bool) throws(StashError) -> Segment {
        if let open = descriptors[segment] { return open }
        // A reader's descriptors may name segments compaction deleted since: a few are kept.
        if !isWriter, descriptors.count >= Self.readerDescriptors { descriptors.removeAll() }
        let path = path(ofSegment: segment)
        let fd = creating
            ? SystemCalls.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            : SystemCalls.open(path, (isWriter ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw StashError.posix("open", path: path) }
        let open = Segment(fd: fd, path: path)
        descriptors[segment] = open
        return open
    }
}
