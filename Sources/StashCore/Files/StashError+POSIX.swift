#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension StashError {
    /// Turns a failed system call's `errno` into a typed error naming the file.
    ///
    /// `ENOSPC` and `EDQUOT` become ``StashError/Code/diskFull``, `EACCES`, `EPERM` and
    /// `EROFS` become ``StashError/Code/permissionDenied``, `ENOENT` becomes
    /// ``StashError/Code/notFound``; anything else is ``StashError/Code/io``.
    package static func posix(_ error: Int32, _ action: String, path: String?) -> StashError {
        let message = String(cString: strerror(error))
        let code: Code
        switch error {
        case ENOSPC, EDQUOT: code = .diskFull
        case EACCES, EPERM, EROFS: code = .permissionDenied
        case ENOENT, ENOTDIR: code = .notFound
        case EWOULDBLOCK: code = .locked
        default: code = .io
        }
        return StashError(code, "\(action): \(message)", path: path, errno: error)
    }

    /// The typed error for the current `errno`.
    package static func posix(_ action: String, path: String?) -> StashError {
        posix(errno, action, path: path)
    }
}
