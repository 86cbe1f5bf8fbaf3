import Dispatch
import Foundation
import StashCore

/// Tells the observed entries of a vault (``Vault/Observed``) to read again: at once after a
/// change made through the vault, and, for a file vault, when its file changed (a write by
/// another process, or by another `Vault` on the same file), which a ``ChangeWatch`` looks for
/// every ``interval`` while anything observes, and at once when a writer elsewhere posts the
/// file's ``ChangeSignal`` (Darwin notifications; Linux has only the timer).
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
        var watch: ChangeWatch?
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
    private let notifier: ChangeNotifier
    private let state = LockedValue(State())

    /// Watches the file `file` returns (`nil` for a Keychain vault, which has none).
    init(file: @escaping @Sendable () -> URL?, notifier: ChangeNotifier = .current) {
        self.file = file
        self.notifier = notifier
    }

    /// Adds an observer; a file vault's first one starts the timer. Returns its number for
    /// ``remove(_:)``.
    func add(_ refresh: @escaping @Sendable () -> Void) -> UInt64 {
        let watched = self.file()
        return state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = refresh
            if let watched, state.watch == nil {
                // Before the observer's first read: a write after it changes the signature.
                state.signature = FileSignature(watched)
                let signal = ChangeSignal(file: watched, notifier: notifier)
                let watch = ChangeWatch(signal: signal, interval: Self.interval) { [weak self] in self?.look(at: watched) }
                watch.start()
                state.watch = watch
            }
            return state.nextID
        }
    }

    /// Removes an observer; the last one stops the watch.
    func remove(_ id: UInt64) {
        state.withLock { state in
            state.observers[id] = nil
            guard state.observers.isEmpty else { return }
            state.watch?.stop()
            state.watch = nil
        }
    }

    /// Whether the watch runs (something observes a file vault).
    var isWatchingFile: Bool { state.withLock { $0.watch != nil } }

    /// A change made through the vault: every observer reads again, on this thread, and a
    /// file vault's observers elsewhere are told (its ``ChangeSignal``).
    func changed() {
        if let file = file() { ChangeSignal(file: file, notifier: notifier).post() }
        refreshAll()
    }

    private func refreshAll() {
        let observers = state.withLock { Array($0.observers.values) }
        for refresh in observers { refresh() }
    }

    private func look(at file: URL) {
        let now = FileSignature(file)
        let changed = state.withLock { state -> Bool in
            defer { state.signature = now }
            return state.signature != now
        }
        if changed { refreshAll() }
    }
}
