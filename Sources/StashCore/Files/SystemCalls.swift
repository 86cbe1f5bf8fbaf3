#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The C library's `read(2)` and `close(2)`, reachable from types that have methods of the
/// same names (`FileStore.read`, `LogFile.close`), without an `#if` at every call site.
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
