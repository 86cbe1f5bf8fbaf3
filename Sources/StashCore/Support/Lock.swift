#if canImport(Darwin)
public import Darwin
#elseif canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#endif

/// A mutual-exclusion lock over `pthread_mutex_t`.
///
/// Every Stash store keeps its mutable state behind one of these, which keeps Apple
/// deployment targets below the ones `Synchronization.Mutex` needs. Never hold it while
/// user code (callbacks, cost closures, codecs) runs.
@usableFromInline
package final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @usableFromInline
    package init() {
        mutex = .allocate(capacity: 1)
        Self.initialize(mutex)
    }

    /// Initializes the mutex at `mutex` as every Stash lock's: for a store that places its
    /// mutexes itself (``MemoryCache``'s stripes, each on cache lines of its own). Destroy it
    /// with `pthread_mutex_destroy`.
    package static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if canImport(Glibc)
        // glibc's adaptive mutex spins briefly before it sleeps in the kernel. Every critical
        // section here is short; with a plain mutex, the proxy's two event loops reading one
        // hot `MemoryCache` entry put each other to sleep and woke each other (a `futex` call
        // each way) about 1,600 times a second, and 50 times a second with this one.
        let typed = pthread_mutexattr_settype(&attributes, 3 /* PTHREAD_MUTEX_ADAPTIVE_NP */)
        #else
        let typed = pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_NORMAL))
        #endif
        assert(typed == 0, "pthread_mutexattr_settype failed: \(typed)")
        let status = pthread_mutex_init(mutex, &attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    package func lock() { pthread_mutex_lock(mutex) }

    @inlinable
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Takes the lock if it is free. - returns: Whether it is now held.
    @inlinable
    package func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    /// Runs `body` with the lock held.
    @inlinable
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value protected by a ``Lock``: the only way to reach it is `withLock`.
@usableFromInline
package final class LockedValue<Value>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    /// Unchecked for exclusivity: it is only reached in `withLock`, under the lock, and a
    /// `withLock` inside another on the same value would deadlock before it could overlap.
    /// The dynamic check (a thread-local access set) was a few percent of a cache hit.
    @exclusivity(unchecked) @usableFromInline var value: Value

    @usableFromInline
    package init(_ value: Value) { self.value = value }

    @inlinable
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
