import Foundation

extension FileStore {
    /// Gives bytes `start..<end` of the file open as `fd` (on `path`) real blocks on disk,
    /// so that a store into a mapping of them can never meet a full disk (a `SIGBUS` that
    /// kills the process): `posix_fallocate` on Linux, zeroes written where there is none or
    /// the file system refuses it. 0, or the error number of the call that failed (`ENOSPC`
    /// on a full disk); the bytes already there are left as they were.
    ///
    /// ```swift
    /// guard FileStore.allocate(fd, from: oldSize, to: newSize, path: path) == 0 else { … }
    /// ```
    ///
    /// Thread-safe as the calls it makes are. It syncs nothing: after a crash the file may
    /// be shorter again, which a caller that maps it must check at open, as it checks any size.
    package static func allocate(_ fd: Int32, from start: Int, to end: Int, path: String) -> Int32 {
        guard end > start else { return 0 }
        #if os(Linux)
        var status: Int32
        repeat {
            status = SystemCalls.allocate(fd, from: start, count: end - start, path: path)
        } while status == EINTR
        guard status == EOPNOTSUPP || status == EINVAL else { return status }
        #endif
        return writeZeroes(fd, from: start, to: end, path: path)
    }

    /// Writes zeroes over `start..<end` of `fd`: 0, or the error number of the write that failed.
    package static func writeZeroes(_ fd: Int32, from start: Int, to end: Int, path: String) -> Int32 {
        let zeroes = [UInt8](repeating: 0, count: 64 * 1024)
        var offset = start
        while offset < end {
            let count = zeroes.withUnsafeBytes {
                SystemCalls.pwrite(fd, $0.baseAddress!, min($0.count, end - offset), at: offset, path: path)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if count == 0 { return EIO }
            offset += count
        }
        return 0
    }
}
