#if canImport(Darwin)
package import Darwin
#elseif canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#endif

/// The calls that change files, each asking ``FaultInjection`` first: the one seam that the
/// package's own file writes go through (``FileStore``, the preferences log), so that tests
/// can fail any of them with a chosen `errno`. Each returns what the C call returns (-1 with
/// `errno` set, or for ``allocate(_:from:count:path:)`` the error number); an injected
/// failure returns the same way without making the call.
///
/// ```swift
/// let fd = SystemCalls.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
/// guard SystemCalls.fsync(fd, path: path) == 0 else { throw StashError.posix("fsync", path: path) }
/// ```
///
/// Thread-safe, as the C calls are. `path` names the file a descriptor was opened on: it is
/// what a fault plan matches, and nothing else reads it.
extension SystemCalls {
    @inline(__always)
    private static func injected(_ call: FaultInjection.Call, _ path: String?, _ descriptor: Int32 = -1) -> Bool {
        guard let code = FaultInjection.fault(call, path: path, count: 0, descriptor: descriptor) else { return false }
        errno = code
        return true
    }

    /// Opens (creating it, with `flags` holding `O_CREAT`) the file at `path` with the mode
    /// `permissions`; the descriptor, or -1 with `errno` set.
    @inline(__always)
    package static func open(_ path: String, _ flags: Int32, _ permissions: mode_t) -> Int32 {
        if injected(.open, path) { return -1 }
        return libcOpen(path, flags, permissions)
    }

    /// Writes up to `count` bytes of `buffer` at the position of `fd` (open on `path`).
    @inline(__always)
    package static func write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, path: String?) -> Int {
        if injected(.write, path, fd) { return -1 }
        return write(fd, buffer, count)
    }

    /// Writes up to `count` bytes of `buffer` at `offset` of `fd` (open on `path`).
    @inline(__always)
    package static func pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, at offset: Int, path: String?) -> Int {
        if injected(.pwrite, path, fd) { return -1 }
        return libcPwrite(fd, buffer, count, off_t(offset))
    }

    /// Flushes the content and metadata of `fd` (open on `path`) to the device.
    ///
    /// On Darwin this is `fcntl(F_FULLFSYNC)`, the only call that makes the drive write its
    /// cache (`fsync` there only hands the data to the drive); on a file system that cannot
    /// (some network and external ones), plain `fsync`, as SQLite does. On Linux, `fsync`.
    @inline(__always)
    package static func fsync(_ fd: Int32, path: String?) -> Int32 {
        if injected(.fsync, path, fd) { return -1 }
        return fullSync(fd)
    }

    /// ``fsync(_:path:)`` for the descriptor of a folder (after a rename or a new entry in it).
    @inline(__always)
    package static func syncFolder(_ fd: Int32, path: String) -> Int32 {
        if injected(.syncFolder, path, fd) { return -1 }
        return fullSync(fd)
    }

    private static func fullSync(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return libcFsync(fd)
    }

    /// Writes the dirty pages of the mapping at `address` (of the file at `path`) back to
    /// the file, waiting for them (`MS_SYNC`). On Darwin this does not reach the drive's
    /// platters: a power-safe caller follows it with ``fsync(_:path:)``.
    @inline(__always)
    package static func msync(_ address: UnsafeMutableRawPointer, _ count: Int, path: String?) -> Int32 {
        if let code = FaultInjection.fault(.msync, path: path, count: count, descriptor: -1) {
            errno = code
            return -1
        }
        return libcMsync(address, count, MS_SYNC)
    }

    #if os(Linux)
    /// Allocates real blocks for `count` bytes from `offset` of `fd` (open on `path`), so
    /// that a full disk shows now rather than as a SIGBUS on a store into a mapping: 0, or
    /// the error number (`posix_fallocate` does not set `errno`).
    @inline(__always)
    package static func allocate(_ fd: Int32, from offset: Int, count: Int, path: String?) -> Int32 {
        if let code = FaultInjection.fault(.allocate, path: path, count: 0, descriptor: fd) { return code }
        return posix_fallocate(fd, off_t(offset), off_t(count))
    }
    #endif

    /// Sets the size of `fd` (open on `path`) to `size` bytes.
    @inline(__always)
    package static func truncate(_ fd: Int32, to size: Int, path: String?) -> Int32 {
        if injected(.truncate, path, fd) { return -1 }
        return ftruncate(fd, off_t(size))
    }

    /// Renames `source` to `destination`, replacing a file there atomically.
    @inline(__always)
    package static func rename(_ source: String, _ destination: String) -> Int32 {
        if injected(.rename, destination) { return -1 }
        return libcRename(source, destination)
    }

    /// Removes the name `path`.
    @inline(__always)
    @discardableResult
    package static func unlink(_ path: String) -> Int32 {
        if injected(.unlink, path) { return -1 }
        return libcUnlink(path)
    }

    /// Gives the file at `source` the further name `destination` (failing with `EEXIST`
    /// when that name is taken).
    @inline(__always)
    package static func link(_ source: String, _ destination: String) -> Int32 {
        if injected(.link, destination) { return -1 }
        return libcLink(source, destination)
    }
}

// The C calls under names of their own: inside `SystemCalls`, its methods of the same names
// hide them.
private func libcOpen(_ path: String, _ flags: Int32, _ permissions: mode_t) -> Int32 { open(path, flags, permissions) }
private func libcPwrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ offset: off_t) -> Int { pwrite(fd, buffer, count, offset) }
private func libcFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func libcMsync(_ address: UnsafeMutableRawPointer, _ count: Int, _ flags: Int32) -> Int32 { msync(address, count, flags) }
private func libcRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func libcUnlink(_ path: String) -> Int32 { unlink(path) }
private func libcLink(_ source: String, _ destination: String) -> Int32 { link(source, destination) }
