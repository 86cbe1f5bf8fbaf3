public import Foundation

/// An advisory lock on a file, shared between processes (flock(2)) and between threads.
///
/// Use it to let several processes take turns on one store. The lock is released when
/// `unlock()` is called, when the `FileLock` is deinitialised, and when the process dies
/// (even by SIGKILL), so a crash never leaves a store locked.
///
/// ```swift
/// let lock = try FileLock(url: folder.appendingPathComponent(".lock"))
/// try lock.withLock(.exclusive) {
///     // only one process (and one thread) at a time runs this
/// }
/// if try lock.tryLock(.exclusive) { defer { lock.unlock() } … } else { /* someone else has it */ }
/// ```
public final class FileLock: Sendable {
    /// Shared locks may be held by many at once; an exclusive lock by one only.
    public enum Mode: Sendable {
        case shared
        case exclusive
    }

    /// Whom the lock keeps apart.
    public enum Scope: Sendable {
        /// Other processes and other threads of this one (the default).
        case processesAndThreads
        /// Other processes only. The caller keeps its own threads in turn (for example
        /// under its own lock), and may release the lock from another thread than the
        /// one that took it.
        case processesOnly
    }

    /// The lock file.
    public let url: URL
    /// Whom the lock keeps apart.
    public let scope: Scope
    private let fd: Int32
    private let threads: Lock?

    /// Opens (creating it if needed, owner-only) the lock file at `url`. Does not lock.
    public init(url: URL, scope: Scope = .processesAndThreads) throws {
        self.url = url
        self.scope = scope
        self.threads = scope == .processesAndThreads ? Lock() : nil
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StashError.posix("open lock file", path: url.path) }
        self.fd = fd
    }

    deinit {
        // Unlock explicitly before closing: a child process forked by another thread of this
        // process holds a duplicate of `fd` until it execs, and the lock belongs to the open
        // file description, so a close alone would keep it locked for that long.
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// Waits until the lock is held in `mode`.
    public func lock(_ mode: Mode = .exclusive) throws {
        threads?.lock()
        while flock(fd, mode == .exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno == EINTR { continue }
            let error = StashError.posix("flock", path: url.path)
            threads?.unlock()
            throw error
        }
    }

    /// Takes the lock in `mode` if no other process holds it in a conflicting mode.
    /// - returns: Whether the lock is now held. When `true`, call `unlock()`.
    public func tryLock(_ mode: Mode = .exclusive) throws -> Bool {
        // Another thread of this process holding this FileLock counts as "taken" too:
        // waiting for it here would make tryLock block.
        if let threads, !threads.tryLock() { return false }
        while flock(fd, (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let code = errno
            threads?.unlock()
            if code == EWOULDBLOCK { return false }
            throw StashError.posix(code, "flock", path: url.path)
        }
        return true
    }

    /// Releases a lock taken by `lock(_:)` or a successful `tryLock(_:)`.
    public func unlock() {
        flock(fd, LOCK_UN)
        threads?.unlock()
    }

    /// Whether the lock's file is still the one at its path: `false` once the file (or a
    /// folder above it) was deleted, renamed or replaced since the lock was opened. Another
    /// process locking the path then locks another file, so this lock excludes no one.
    package var isStillAtItsPath: Bool {
        var held = stat(), named = stat()
        guard fstat(fd, &held) == 0, stat(url.path, &named) == 0 else { return false }
        return held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }

    /// Runs `body` while holding the lock in `mode`.
    public func withLock<T>(_ mode: Mode = .exclusive, _ body: () throws -> T) throws -> T {
        try lock(mode)
        defer { unlock() }
        return try body()
    }
}
