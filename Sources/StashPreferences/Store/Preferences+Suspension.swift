extension Preferences {
    /// Releases the suite's file lock now, and from now on right after each write instead of
    /// a millisecond later, until ``resume()``. Call it when an app whose suite sits in an
    /// app-group container goes to the background: iOS terminates a suspended app that holds
    /// a file lock in a shared container (the `0xDEAD10CC` exception), and the lock a write
    /// keeps for the writes that follow could still be held when the app is suspended.
    ///
    /// ```swift
    /// // scenePhase became .background:
    /// shared.suspend()
    /// // scenePhase became .active:
    /// shared.resume()
    /// ```
    ///
    /// Reads and writes go on as usual meanwhile; each write takes the lock and gives it back.
    /// Idempotent.
    ///
    /// **Crash safety.** Suspending changes nothing in what a write promises: when a set
    /// returns, suspended or not, the value survives a crash of the process (a power cut
    /// after ``flush()``, or with ``Options/durable``). There is nothing to write first.
    ///
    /// **Thread safety.** Call it from any thread while others read and write: it waits for a
    /// write in progress, and every write that ends after it returned gives the lock back
    /// before returning.
    public func suspend() {
        engine.withLock { engine in
            engine.isSuspended = true
            engine.releaseFileLock()
        }
    }

    /// Lets writes keep the file lock for a millisecond again (see ``suspend()``), so that a
    /// burst of writes takes it once. Idempotent and thread-safe; it changes nothing in what a
    /// write promises.
    public func resume() {
        engine.withLock { $0.isSuspended = false }
    }
}
