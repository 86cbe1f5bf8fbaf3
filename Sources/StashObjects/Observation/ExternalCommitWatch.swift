import Dispatch
import Foundation
import GRDB
import StashCore

/// Makes a store's observations see the commits of other processes (and of other
/// `ObjectStore`s on the same file), which GRDB's observation, fed by this store's own
/// commits, never hears of.
///
/// While at least one observation runs, a timer looks at `PRAGMA data_version` on the
/// store's write connection every ``interval``: SQLite changes it when another connection
/// has committed, and never for the connection's own commits. When it changed, the watch
/// tells GRDB that the whole database may have changed (`notifyChanges(in:)` inside an empty
/// write transaction), and every observation fetches again (those of `Equatable` models
/// yield only when their results differ). Without observers, no timer runs.
final class ExternalCommitWatch: Sendable {
    /// How often, while anyone observes, the store looks for other processes' commits.
    static let interval: DispatchTimeInterval = .milliseconds(Int(ObjectStore.watchInterval * 1000))

    private struct State {
        var observers = 0
        var timer: (any DispatchSourceTimer)?
        /// The data version at the last look; `nil` before the first look of a watch.
        var lastVersion: Int?
    }

    private let pool: DatabasePool
    private let state = LockedValue(State())

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// An observation started: the watch runs until every lease is released.
    func lease() -> Lease {
        state.withLock { state in
            state.observers += 1
            guard state.timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
            timer.setEventHandler { [weak self] in self?.look() }
            timer.resume()
            state.timer = timer
        }
        return Lease(watch: self)
    }

    fileprivate func release() {
        state.withLock { state in
            state.observers -= 1
            guard state.observers == 0 else { return }
            state.timer?.cancel()
            state.timer = nil
            state.lastVersion = nil
        }
    }

    /// One look at the data version; a closed store ends the watch.
    private func look() {
        do {
            try pool.writeWithoutTransaction { db in
                let version = try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
                let changed = state.withLock { state -> Bool in
                    defer { state.lastVersion = version }
                    // The first look cannot know what the observations' first fetch saw: a
                    // commit may have come in between, so it counts as a change.
                    return state.lastVersion.map { $0 != version } ?? true
                }
                if changed {
                    try db.inTransaction {
                        try db.notifyChanges(in: .fullDatabase)
                        return .commit
                    }
                }
            }
        } catch {
            state.withLock { state in
                state.timer?.cancel()
                state.timer = nil
            }
        }
    }

    /// Held by an observation's iterator; releasing it (the iteration ended) lets the watch
    /// stop once no observation is left.
    final class Lease: Sendable {
        private let watch: ExternalCommitWatch
        fileprivate init(watch: ExternalCommitWatch) { self.watch = watch }
        deinit { watch.release() }
    }
}
