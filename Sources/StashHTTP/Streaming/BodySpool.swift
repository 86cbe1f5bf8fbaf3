import Foundation
import StashCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A body arriving in parts, written to a file of the disk cache's folder
/// (`DiskCache.makeIncomingFile()`) instead of memory. The file is deleted when the spool
/// goes away unfinished (the body failed or was dropped); ``finish()`` hands it over.
final class BodySpool: Sendable {
    let url: URL
    /// The open file, `nil` once finished or discarded.
    private let descriptor: LockedValue<Int32?>

    /// Opens `url`, an empty file, for writing.
    init(url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            unlink(url.path)
            throw StashError.posix("open an incoming file", path: url.path)
        }
        self.url = url
        descriptor = LockedValue(fd)
    }

    /// Appends `data`.
    func write(_ data: Data) throws {
        try descriptor.withLock { fd in
            guard let fd else { throw StashError(.closed, "the body spool was finished", path: url.path) }
            try FileStore.writeAll(fd, data, path: url.path)
        }
    }

    /// Closes the file and gives it up to the caller, who adopts or deletes it.
    func finish() throws -> URL {
        let fd = descriptor.withLock { fd in defer { fd = nil }; return fd }
        guard let fd, close(fd) == 0 else {
            unlink(url.path)
            throw StashError.posix("close an incoming file", path: url.path)
        }
        return url
    }

    deinit {
        if let fd = descriptor.withLock({ $0 }) {
            close(fd)
            unlink(url.path)
        }
    }
}
