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
        let part = try read(start..<min(start + Self.partSize, end))
        position.withLock { $0 = start + part.count }
        return part
    }

    /// The rest of the range in one piece (one buffer, no copy), for an answer handed out
    /// whole.
    ///
    /// - throws: As ``next()``.
    func remaining() throws -> Data {
        let start = position.withLock { $0 }
        guard start < end else { return Data() }
        let rest = try read(start..<end)
        position.withLock { $0 = end }
        return rest
    }

    /// `range` of the file, whole (`FileStore.read(descriptor:range:path:)`: one buffer,
    /// interrupted reads tried again).
    ///
    /// - throws: `StashError(.corruptFile)` when the file ends before `range` does, or the
    ///   read error, naming the body's key.
    private func read(_ range: Range<Int>) throws -> Data {
        let data: Data
        do {
            data = try FileStore.read(descriptor: file.fileDescriptor, range: range)
        } catch var error as StashError {
            error.key = key
            throw error
        }
        guard data.count == range.count else {
            throw StashError(.corruptFile, "the stored body ends at byte \(range.lowerBound + data.count) of \(end)", key: key)
        }
        return data
    }

    /// The parts as a body, framed: a file that ends before the range does throws.
    var body: HTTPBodyStream { HTTPBodyStream(next: { try self.next() }, endsFramed: true) }
}
