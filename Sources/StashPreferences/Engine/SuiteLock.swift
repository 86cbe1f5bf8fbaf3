import Foundation
import StashCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The suite's lock file (`<log>.lock`), locked with flock(2) so that processes take turns
/// on the log.
///
/// Unlike `FileLock` it has no thread lock of its own: the engine's lock already keeps its
/// threads in turn, and the engine may release a lock that another thread took (the lock
/// lingers after a write and a timer lets it go). The kernel releases it when the process
/// dies, even by SIGKILL.
///
/// Not thread-safe: used only under the engine's lock.
final class SuiteLock {
    let url: URL
    private let fd: Int32

    /// Opens (creating it if needed, owner-only) the lock file. Does not lock.
    init(url: URL) throws {
        self.url = url
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StashError.posix("open lock file", path: url.path) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Waits until this process holds the lock exclusively.
    func lock() throws {
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw StashError.posix("flock", path: url.path)
        }
    }

    func unlock() {
        flock(fd, LOCK_UN)
    }
}
