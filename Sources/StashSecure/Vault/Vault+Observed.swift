import Foundation
public import Observation
public import StashCore

extension Vault {
    /// One entry of a vault, kept current for the Observation framework: a read of ``value``
    /// or ``isPresent`` inside `withObservationTracking` (or a SwiftUI view's `body`, or
    /// anything else that tracks `@Observable` objects) is tracked, and the next change of the
    /// entry ends the tracking with `onChange`.
    ///
    /// ```swift
    /// let signedIn = vault.observed(Vault.Key<Bool>("signed-in"))
    /// withObservationTracking {
    ///     print(signedIn.isPresent ? "signed in" : "signed out")
    /// } onChange: {
    ///     print("the sign-in changed")
    /// }
    /// try signedIn.set(true)   // prints "the sign-in changed"
    /// ```
    ///
    /// Which changes it sees, and when:
    /// - made through the same `Vault` (by this object, another, or the vault's own methods):
    ///   when the write returns;
    /// - a file vault (Linux, and ``Vault/init(service:accessGroup:keyring:key:)``) changed by
    ///   another process or another `Vault` on the same file: within 100 ms, as long as
    ///   anything observes the vault (it looks at the file's inode, size and modification
    ///   time that often: one `stat`, no decryption unless it changed);
    /// - a Keychain vault (Apple platforms) changed elsewhere (an extension, another `Vault`):
    ///   the Keychain notifies no one, so call ``refresh()`` when that may have happened (the
    ///   app becoming active, say).
    ///
    /// ``VaultEntry`` is the property-wrapper form. Thread-safe: read from any thread or task;
    /// `onChange` runs on the thread that made the change, or on the vault's watch queue.
    /// Each object follows its entry until it is released.
    public final class Observed<Value: Sendable>: Observable, Sendable {
        /// The entry this object follows.
        public let key: Key<Value>
        /// The vault it reads and writes.
        public let vault: Vault

        private struct State: Sendable {
            var data: Data?
            var value: Value?
            var error: StashError?
            /// The read the state comes from, in the order of the reads.
            var read: UInt64 = 0
        }

        private let state = ObservedState(State())
        /// Numbers the reads, under the lock that serializes them, so that a slow read never
        /// overwrites what a later one found.
        private let reads = LockedValue<UInt64>(0)

        init(key: Key<Value>, vault: Vault) {
            self.key = key
            self.vault = vault
            let id = vault.watch.add { [weak self] in self?.refresh() }
            state.releasing { [watch = vault.watch] in watch.remove(id) }
            refresh()
        }

        /// The entry's value, or `nil` when there is none (or the last read failed before
        /// any succeeded: see ``error``).
        public var value: Value? { state.read(\.value, of: self) { $0.value } }

        /// Whether the entry exists. Tracked apart from ``value``: a change of the value
        /// alone does not end a tracking of this.
        public var isPresent: Bool { state.read(\.isPresent, of: self) { $0.data != nil } }

        /// Why the last read failed (a wrong key, a tampered file, an entry that does not
        /// decode as `Value`, a locked Keychain), or `nil` after one that succeeded. The
        /// value stays what the last good read found.
        public var error: StashError? { state.read(\.error, of: self) { $0.error } }

        /// Stores `newValue` under the key; `nil` removes the entry. The value is current here
        /// when this returns.
        ///
        /// ```swift
        /// try signedIn.set(true)
        /// ```
        ///
        /// Promises what ``Vault/set(_:for:)`` promises: on disk (or in the Keychain) when it
        /// returns, surviving a crash or a power cut.
        ///
        /// - throws: As ``Vault/set(_:for:)``; nothing changes then.
        public func set(_ newValue: Value?) throws {
            try vault.set(newValue, for: key)
        }

        /// Removes the entry.
        ///
        /// - throws: As ``Vault/removeValue(forKey:)``.
        public func removeValue() throws {
            try vault.removeValue(for: key)
        }

        /// Reads the entry again now: for a Keychain vault, after another process may have
        /// changed it.
        ///
        /// ```swift
        /// // scenePhase became .active:
        /// signedIn.refresh()
        /// ```
        public func refresh() {
            let (read, result) = reads.withLock { count -> (UInt64, Result<Data?, any Error>) in
                count += 1
                return (count, Result { try vault.data(forKey: key.name) })
            }
            switch result {
            case .success(let data):
                do {
                    let value = try data.map(key.decode)
                    apply(read: read, data: data, value: value)
                } catch {
                    fail(read: read, error)
                }
            case .failure(let error):
                fail(read: read, error)
            }
        }

        private func apply(read: UInt64, data: Data?, value: Value?) {
            state.change(\.isPresent, of: self, when: { read > $0.read && ($0.data != nil) != (data != nil) }) { _ in }
            state.change(\.value, of: self, when: { read > $0.read && ($0.data != data || $0.error != nil) }) { state in
                guard read > state.read else { return }
                state = State(data: data, value: value, error: state.error, read: read)
            }
            state.change(\.error, of: self, when: { $0.read == read && $0.error != nil }) { $0.error = nil }
        }

        private func fail(read: UInt64, _ error: any Error) {
            let failure = error as? StashError ?? StashError(.io, "\(error)", key: key.name)
            state.change(\.error, of: self, when: { read > $0.read }) { state in
                guard read > state.read else { return }
                state.error = failure
                state.read = read
            }
        }
    }

    /// An object that keeps the entry of `key` current for the Observation framework (see
    /// ``Observed``).
    ///
    /// ```swift
    /// @Observable final class AccountModel {
    ///     let token = vault.observed(Vault.Key<String>("api-token"))
    /// }
    /// ```
    public func observed<Value>(_ key: Key<Value>) -> Observed<Value> {
        Observed(key: key, vault: self)
    }
}
