import StashCore

/// The changes one engine operation produced for observers, numbered in the order the
/// engine produced them (under its lock).
struct ChangeBatch {
    var sequence: UInt64
    var changes: [PreferenceChange]
}

/// Hands batches of changes to observers in the order the engine produced them, although
/// each is delivered after the engine's lock is released (so that observers never run under
/// it): two threads writing one key must not leave a `values(for:)` stream resting on the
/// older value because the thread that wrote it was descheduled before delivering.
///
/// A thread whose batch is not next leaves it here and returns; the thread holding the
/// batch before it delivers both. Every numbered batch is handed in, so none waits forever.
/// Thread-safe (one lock, taken after the engine's is released and before the observers');
/// never blocks on an observer, since delivering only yields to streams.
final class ChangeDelivery: @unchecked Sendable {  // `next` and `waiting` are used under `lock`
    private let lock = Lock()
    private var next: UInt64 = 0
    private var waiting: [UInt64: [PreferenceChange]] = [:]

    /// Delivers `batch` with `deliver`, after every batch numbered before it, and the batches
    /// left waiting for it.
    func hand(_ batch: ChangeBatch, to deliver: ([PreferenceChange]) -> Void) {
        lock.withLock {
            waiting[batch.sequence] = batch.changes
            while let changes = waiting.removeValue(forKey: next) {
                next &+= 1
                deliver(changes)
            }
        }
    }
}
