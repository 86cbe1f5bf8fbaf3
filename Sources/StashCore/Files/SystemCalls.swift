#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The C library's `open(2)`, `read(2)`, `write(2)`, `pread(2)` and `close(2)` (and, in
/// `SystemCalls+Files.swift`, the calls that change files, through the ``FaultInjection``
/// seam), reachable from types that have methods of the same names (`FileStore.read`, `LogFile.close`), without an `#if`
/// at every call site.
///
/// ```swift
/// let fd = SystemCalls.open(path, O_RDONLY | O_CLOEXEC)
/// defer { SystemCalls.close(fd) }
/// let count = SystemCalls.pread(fd, buffer, 4096, at: 0)
/// ```
package enum SystemCalls {
    @inline(__always)
    package static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        return Darwin.read(fd, buffer, count)
        #elseif canImport(Glibc)
        return Glibc.read(fd, buffer, count)
        #else
        return Musl.read(fd, buffer, count)
        #endif
    }

    /// Writes up to `count` bytes of `buffer` to `fd`; the number written, or -1 with
    /// `errno` set.
    @inline(__always)
    package static func write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        return Darwin.write(fd, buffer, count)
        #elseif canImport(Glibc)
        return Glibc.write(fd, buffer, count)
        #else
        return Musl.write(fd, buffer, count)
        #endif
    }

    /// Opens the existing file at `path` with `flags`; the descriptor, or -1 with `errno` set
    /// (a failure ``FaultInjection`` injects included).
    @inline(__always)
    package static func open(_ path: String, _ flags: Int32) -> Int32 {
        if let code = FaultInjection.fault(.open, path: path) {
            errno = code
            return -1
        }
        #if canImport(Darwin)
        return Darwin.open(path, flags)
        #elseif canImport(Glibc)
        return Glibc.open(path, flags)
        #else
        return Musl.open(path, flags)
        #endif
    }

    /// Reads up to `count` bytes at `offset` of `fd` without moving its position; the
    /// number read (0 at the end), or -1 with `errno` set.
    @inline(__always)
    package static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, at offset: Int) -> Int {
        #if canImport(Darwin)
        return Darwin.pread(fd, buffer, count, off_t(offset))
        #elseif canImport(Glibc)
        return Glibc.pread(fd, buffer, count, off_t(offset))
        #else
        return Musl.pread(fd, buffer, count, off_t(offset))
        #endif
    }

    @inline(__always)
    @discardableResult
    package static func close(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        return Darwin.close(fd)
        #elseif canImport(Glibc)
        return Glibc.close(fd)
        #else
        return Musl.close(fd)
        #endif
    }
}
