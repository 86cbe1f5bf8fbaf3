#if canImport(Darwin)
public import Darwin
#elseif canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#endif
public import Foundation
public import StashCore

/// A ``MemoryCache``'s hash table split in stripes (``MemoryCacheStripe``), each under a lock
/// of its own, so that reads of different keys on different threads seldom wait for each
/// other: a key's stripe is picked by bits of its hash that neither the table's bucket index
/// nor its control byte uses.
///
/// Each stripe's mutex and fields sit together on cache lines of their own (128 bytes apart,
/// the span a processor's adjacent-line prefetch pulls in), so that a hit, which takes the
/// lock and counts itself, never writes to a line another stripe's readers use.
///
/// Lock order: the cache's policy lock (``MemoryCache/state``) before any stripe's, and one
/// stripe at a time.
@usableFromInline
final class MemoryCacheStripes<Key: Hashable, Value>: @unchecked Sendable {
    /// The number of stripes: a power of two.
    @usableFromInline let count: Int
    /// `count - 1`.
    @usableFromInline let mask: Int
    /// Every stripe's mutex, then the stripe, one ``stride`` apart.
    @usableFromInline let memory: UnsafeMutableRawPointer

    /// Where a stripe's fields start, after its mutex.
    @usableFromInline static var fieldsOffset: Int { (MemoryLayout<pthread_mutex_t>.size + 63) & ~63 }
    /// The bytes from one stripe to the next: whole 128-byte spans.
    @usableFromInline static var stride: Int { (fieldsOffset + MemoryLayout<MemoryCacheStripe<Key, Value>>.size + 127) & ~127 }

    /// Four stripes for each processor, between 4 and 32: two threads of a busy machine then
    /// meet on one stripe for about one read in four times the processors.
    static var defaultCount: Int {
        let wanted = min(32, max(4, 4 * ProcessInfo.processInfo.activeProcessorCount))
        var count = 1
        while count < wanted { count *= 2 }
        return count
    }

    init(count: Int) {
        precondition(count > 0 && count & (count - 1) == 0, "the stripe count is a power of two")
        self.count = count
        mask = count - 1
        memory = .allocate(byteCount: count * Self.stride, alignment: 128)
        for index in 0..<count {
            let base = memory + index * Self.stride
            Lock.initialize(base.bindMemory(to: pthread_mutex_t.self, capacity: 1))
            (base + Self.fieldsOffset).initializeMemory(as: MemoryCacheStripe<Key, Value>.self, to: MemoryCacheStripe())
        }
    }

    deinit {
        for index in 0..<count {
            let base = memory + index * Self.stride
            pthread_mutex_destroy(base.assumingMemoryBound(to: pthread_mutex_t.self))
            (base + Self.fieldsOffset).assumingMemoryBound(to: MemoryCacheStripe<Key, Value>.self).deinitialize(count: 1)
        }
        memory.deallocate()
    }

    /// The stripe of a key whose `hashValue` is `hash`: bits from 51 up, below the seven that
    /// make a bucket's control byte and far above any bucket index.
    @inlinable @inline(__always)
    func index(forHash hash: Int) -> Int {
        Int(truncatingIfNeeded: UInt(bitPattern: hash) >> (UInt.bitWidth - 13)) & mask
    }

    /// Runs `body` on stripe `index` under its lock.
    @inlinable
    func withStripe<T>(at index: Int, _ body: (inout MemoryCacheStripe<Key, Value>) -> T) -> T {
        let base = memory + index &* Self.stride
        let mutex = base.assumingMemoryBound(to: pthread_mutex_t.self)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&(base + Self.fieldsOffset).assumingMemoryBound(to: MemoryCacheStripe<Key, Value>.self).pointee)
    }

    /// Runs `body` under its lock on the stripe of a key whose `hashValue` is `hash`.
    @inlinable
    func withStripe<T>(hash: Int, _ body: (inout MemoryCacheStripe<Key, Value>) -> T) -> T {
        withStripe(at: index(forHash: hash), body)
    }
}
