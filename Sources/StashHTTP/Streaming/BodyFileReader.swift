import Foundation
import StashCore

/// Reads a range of a stored body's file in 64 KiB parts, for a hit streamed from the disk
/// cache. The file is open already (`DiskCache.openFile(forKey:)`, during the lookup), so a
/// later removal or replacement of the entry (which unlinks or renames over the file) does
/// not change what this reader reads. One reader at a time, as every ``HTTPBodyStream``.
final class BodyFileReader: Sendable {
    private let file: FileHandle
    /// The stored body's disk cache key, for errors.
    private let key: String
    private let position: LockedValue<Int>
    private let end: Int

    static let partSize = 64 << 10

    /// Reads `range` of the open `file`, the body stored under `key`.
    init(_ file: FileHandle, key: String, range: Range<Int>) {
        self.file = file
        self.key = key
        position = LockedValue(range.lowerBound)
        end = range.upperBound
    }

    /// The next part, `nil` at the end of the range.
    ///
    /// - throws: `StashError(.corruptFile)` when the file ends before the range does, or
    ///   the read error.
    func next() throws -> Data? {
        // The position is taken and put back around the read, not held across it: the body
        // has one reader, so nothing moves it meanwhile.
        let start = position.withLock { $0 }
        guard start < end else { return nil }
        let count = min(Self.partSize, end - start)
        // Not zero-filled: the read fills it, and the part takes it over without a copy.
        guard let buffer = malloc(count) else { throw StashError(.io, "no memory for a part of the stored body", key: key) }
        let read = SystemCalls.pread(file.fileDescriptor, buffer, count, at: start)
        guard read > 0 else {
            free(buffer)
            if read < 0 { throw StashError.posix("read the stored body \(key)", path: nil) }
            throw StashError(.corruptFile, "the stored body ends at byte \(start) of \(end)", key: key)
        }
        position.withLock { $0 = start + read }
        return Data(bytesNoCopy: buffer, count: read, deallocator: .free)
    }

    /// The rest of the range in one piece, for an answer handed out whole.
    ///
    /// - throws: As ``next()``.
    func remaining() throws -> Data {
        var data = Data()
        data.reserveCapacity(end - position.withLock { $0 })
        while let part = try next() { data.append(part) }
        return data
    }

    /// The parts as a body.
    var body: HTTPBodyStream { HTTPBodyStream(next: { try self.next() }) }
}
