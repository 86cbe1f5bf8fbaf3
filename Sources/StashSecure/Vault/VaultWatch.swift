import Dispatch
import Foundation
import StashCore

/// Tells the observed entries of a vault (``Vault/Observed``) to read again: at once after a
/// change made through the vault, and, for a file vault, when its file changed (a write by
/// another process, or by another `Vault` on the same file), which a timer looks for every
/// ``interval`` while anything observes.
///
/// A look is one `stat` of the vault file: every write replaces the file by an atomic rename,
/// so its inode, size or modification time differ after each. A Keychain vault has no file
/// and no timer: its entries are read again after this vault's own changes and on
/// ``Vault/Observed/refresh()``.
final class VaultWatch: Sendable {
    /// How often, while anything observes a file vault, it looks for other writers' changes.
    static let interval: DispatchTimeInterval = .milliseconds(100)

    private struct State {
        var observers: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
        var timer: (any DispatchSourceTimer)?
        var signature: FileSignature?
    }

    /// What a look compares: `nil` fields for a missing file.
    private struct FileSignature: Equatable {
        var inode: UInt64?
        var size: UInt64?
        var modified: Date?

        init(_ file: URL) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
            inode = (attributes?[.systemFileNumber] as? NSNumber)?.uint64Value
            size = (attributes?[.size] as? NSNumber)?.uint64Value
            modified = attributes?[.modificationDate] as? Date
        }
    }

    private let file: @Sendable () -> URL?
    private let state = LockedValue(State())

    /// Watches the file `file` returns (`nil` for a Keychain vault, which has none).
    init(file: @escaping @Sendable () -> URL?) {
        self.file = file
    }

    /// Adds an observer; a file vault's first one starts the timer. Returns its number for
    /// ``remove(_:)``.
    func add(_ refresh: @escaping @Sendable () -> Void) -> UInt64 {
        let watched = self.file()
        return state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = refresh
            if let watched, state.timer == nil {
                // Before the observer's first read: a write after it changes the signature.
                state.signature = FileSignature(watched)
                let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
                timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
                timer.setEventHandler { [weak self] in self?.look(at: watched) }
                timer.resume()
                state.timer = timer
            }
            return state.nextID
        }
    }

    /// Removes an observer; the last one stops the timer.
    func remove(_ id: UInt64) {
        state.withLock { state in
            state.observers[id] = nil
            guard state.observers.isEmpty else { return }
            state.timer?.cancel()
            state.timer = nil
        }
    }

    /// Whether the timer runs (something observes a file vault).
    var isWatchingFile: Bool { state.withLock { $0.timer != nil } }

    /// The entries may have changed: every observer reads again, on this thread.
    func changed() {
        let observers = state.withLock { Array($0.observers.values) }
        for refresh in observers { refresh() }
    }

    private func look(at file: URL) {
        let now = FileSignature(file)
        let changed = state.withLock { state -> Bool in
            defer { state.signature = now }
            return state.signature != now
        }
        if changed { self.changed() }
    }
}
