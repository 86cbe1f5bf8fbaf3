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
    public func suspend() {
        engine.withLock { engine in
            engine.isSuspended = true
            engine.releaseFileLock()
        }
    }

    /// Lets writes keep the file lock for a millisecond again (see ``suspend()``), so that a
    /// burst of writes takes it once. Idempotent.
    public func resume() {
        engine.withLock { $0.isSuspended = false }
    }
}
