import Foundation
import StashCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a range of a stored body's file in 64 KiB parts, for a hit streamed from the disk
/// cache. The file is opened at once, so a later removal or replacement of the entry (which
/// unlinks or renames over the file) does not change what this reader reads.
final class BodyFileReader: Sendable {
    private let descriptor: Int32
    private let path: String
    private let position: LockedValue<Int>
    private let end: Int

    static let partSize = 64 << 10

    /// Opens `path` to read `range`; `nil` when the file cannot be opened (it was removed).
    init?(path: String, range: Range<Int>) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        descriptor = fd
        self.path = path
        position = LockedValue(range.lowerBound)
        end = range.upperBound
    }

    /// The next part, `nil` at the end of the range.
    ///
    /// - throws: `StashError(.corruptFile)` when the file ends before the range does, or
    ///   the read error.
    func next() throws -> Data? {
        try position.withLock { position in
            guard position < end else { return nil }
            let count = min(Self.partSize, end - position)
            var data = Data(count: count)
            let read = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(position)) }
            guard read >= 0 else { throw StashError.posix("read a stored body", path: path) }
            guard read > 0 else { throw StashError(.corruptFile, "the stored body ends at byte \(position) of \(end)", path: path) }
            position += read
            return read == count ? data : data.prefix(read)
        }
    }

    /// The parts as a body.
    var body: HTTPBodyStream { HTTPBodyStream(next: { try self.next() }) }

    deinit { close(descriptor) }
}
