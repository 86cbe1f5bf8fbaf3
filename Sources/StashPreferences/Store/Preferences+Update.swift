import Foundation
import StashCore

extension Preferences {
    /// Reads, changes and writes the stored value of `key` as one step that no other thread,
    /// instance or process can interleave with.
    ///
    /// ```swift
    /// try prefs.update(forKey: "history") { old in
    ///     var list = old.flatMap { try? [String](preferenceValue: $0) } ?? []
    ///     list.append("opened")
    ///     return try list.suffix(10).map { $0 }.preferenceValue()
    /// }
    /// ```
    ///
    /// `body` runs under the suite's lock (its file lock too), after catching up with every
    /// process's writes, so it sees the latest stored value (`nil` when there is none,
    /// ignoring registered defaults and volatile values). What it returns is stored (`nil`
    /// removes the key); an expiry date the value had is kept. When `body` throws, nothing
    /// is written and the error is rethrown. Keep `body` short, and do not use this store
    /// inside it (that would wait for itself): other processes wait while it runs.
    ///
    /// - returns: The value stored.
    /// - throws: What `body` throws, ``/StashCore/StashError/Code/invalidKey``,
    ///   ``/StashCore/StashError/Code/diskFull``, ``/StashCore/StashError/Code/closed``.
    @discardableResult
    public func update(forKey key: String, _ body: (PreferenceValue?) throws -> PreferenceValue?) throws -> PreferenceValue? {
        try withLock { transaction in
            let new = try body(transaction.object(forKey: key))
            try transaction.write(new, forKey: key)
            return new
        }
    }

    /// Reads, changes and writes the value of a typed key atomically, as
    /// `update(forKey:_:)` does; `body` sees the key's default when it has no value.
    ///
    /// ```swift
    /// extension Preferences.Key where Value == [String] {
    ///     static let recent = Preferences.Key("recent", default: [])
    /// }
    /// try prefs.update(.recent) { $0.append("report.pdf") }
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/typeMismatch`` when the stored value has another type
    ///   (nothing is written), and as `update(forKey:_:)`.
    public func update<Value>(_ key: Key<Value>, _ body: (inout Value) throws -> Void) throws {
        try withLock { transaction in
            var value = try transaction.value(for: key)
            try body(&value)
            try transaction.set(value, for: key)
        }
    }

    /// Adds `amount` to the integer stored under `key` (0 when it has none), atomically
    /// across threads and processes: two processes incrementing one key 10,000 times each
    /// leave exactly 20,000.
    ///
    /// ```swift
    /// let launches = try prefs.increment(forKey: "launchCount")
    /// ```
    ///
    /// - returns: The new value.
    /// - throws: ``/StashCore/StashError/Code/typeMismatch`` when the stored value is not an integer,
    ///   ``/StashCore/StashError/Code/unsupportedValue`` when the sum overflows `Int64`; nothing is
    ///   written then. And as `update(forKey:_:)`.
    @discardableResult
    public func increment(forKey key: String, by amount: Int64 = 1) throws -> Int64 {
        try withLock { transaction in
            let current: Int64
            switch transaction.object(forKey: key) {
            case nil: current = 0
            case .integer(let value)?: current = value
            case let other?:
                throw StashError(.typeMismatch, "a stored \(other.typeName) cannot be incremented", key: key)
            }
            let (sum, overflow) = current.addingReportingOverflow(amount)
            if overflow { throw StashError(.unsupportedValue, "\(current) + \(amount) overflows a 64-bit integer", key: key) }
            try transaction.set(.integer(sum), forKey: key)
            return sum
        }
    }

    /// Runs `body` with the suite locked against every other thread, instance and process,
    /// for changes that span several keys. The writes `body` makes through the transaction
    /// are applied together when it returns; when it throws, none is.
    ///
    /// ```swift
    /// try prefs.withLock { transaction in
    ///     let balance = transaction.value(forKey: "balance", as: Int.self) ?? 0
    ///     try transaction.set(balance - 5, forKey: "balance")
    ///     try transaction.set(Date(), forKey: "lastPurchase")
    /// }
    /// ```
    ///
    /// Do not use the store itself inside `body` (it would wait for itself); use the
    /// transaction. The writes are published by one commit of the log, after room for all
    /// of them was reserved: a full disk, any other error, or a crash leaves none of them
    /// visible, to this process or another.
    ///
    /// - throws: What `body` throws, ``/StashCore/StashError/Code/diskFull``, ``/StashCore/StashError/Code/closed``.
    public func withLock<T>(_ body: (Transaction) throws -> T) throws -> T {
        try run { engine in
            if engine.isClosed { throw StashError(.closed, "the preferences were closed", path: url?.path) }
            return try engine.withFileLock {
                let transaction = Transaction(engine: engine)
                defer { transaction.engine = nil }
                let result = try body(transaction)
                // One commit for every write: all of them are visible, or none is.
                if transaction.writes.count == 1, let write = transaction.writes.first {
                    try engine.write(write.key, write.value, expiry: write.value == nil ? nil : write.expiry)
                } else if !transaction.writes.isEmpty {
                    try engine.write(batch: transaction.writes.map { ($0.key, $0.value, $0.value == nil ? nil : $0.expiry) })
                }
                return result
            }
        }
    }

    /// The suite as seen inside ``Preferences/withLock(_:)``: reads see the latest stored
    /// values and the transaction's own writes; writes are applied when the body returns.
    ///
    /// ```swift
    /// try prefs.withLock { transaction in
    ///     try transaction.set(transaction.integer(forKey: "a") + 1, forKey: "a")
    /// }
    /// ```
    ///
    /// Valid only inside the body it was given to; later use reads nothing and writes throw
    /// ``/StashCore/StashError/Code/closed``.
    public final class Transaction {
        fileprivate var engine: PreferencesEngine?
        fileprivate var writes: [(key: String, value: PreferenceValue?, expiry: Double?)] = []
        private var pending: [String: PreferenceValue?] = [:]

        fileprivate init(engine: PreferencesEngine) { self.engine = engine }

        /// The stored value of `key` (this transaction's write, if it made one), or `nil`.
        ///
        /// ```swift
        /// if case .string(let theme)? = transaction.object(forKey: "theme") { … }
        /// ```
        public func object(forKey key: String) -> PreferenceValue? {
            guard let engine, let key = try? PreferencesEngine.storedKey(key) else { return nil }
            if let written = pending[key] { return written }
            return engine.storedValue(key)
        }

        /// The stored value of `key` as `type`, or `nil` when it has none or another type.
        ///
        /// ```swift
        /// let tags = transaction.value(forKey: "tags", as: [String].self) ?? []
        /// ```
        public func value<Value: PreferenceStorable>(forKey key: String, as type: Value.Type = Value.self) -> Value? {
            object(forKey: key).flatMap { try? Value(preferenceValue: $0) }
        }

        /// The integer value of `key`, or 0.
        ///
        /// ```swift
        /// try transaction.set(transaction.integer(forKey: "count") + 1, forKey: "count")
        /// ```
        public func integer(forKey key: String) -> Int { value(forKey: key, as: Int.self) ?? 0 }

        /// The value of a typed key, or its default when it has none.
        ///
        /// ```swift
        /// let volume = try transaction.value(for: .volume)
        /// ```
        ///
        /// - throws: ``/StashCore/StashError/Code/typeMismatch`` when the stored value has another type.
        public func value<Value>(for key: Key<Value>) throws -> Value {
            guard let stored = object(forKey: key.name) else { return key.defaultValue }
            do { return try key.decode(stored) } catch var error as StashError {
                error.key = key.name
                throw error
            }
        }

        /// Stores `value` under `key` when the body returns.
        ///
        /// ```swift
        /// try transaction.set(.string("dark"), forKey: "theme")
        /// ```
        ///
        /// An expiry date the key's value had is kept.
        ///
        /// - throws: ``/StashCore/StashError/Code/invalidKey``, ``/StashCore/StashError/Code/closed`` after the body.
        public func set(_ value: PreferenceValue, forKey key: String) throws {
            try write(value, forKey: key)
        }

        /// Stores a Swift value under `key` when the body returns; an empty optional removes
        /// the key.
        ///
        /// ```swift
        /// try transaction.set(Date(), forKey: "lastPurchase")
        /// ```
        public func set<Value: PreferenceStorable>(_ value: Value, forKey key: String) throws {
            try write(try value.preferenceValue(), forKey: key)
        }

        /// Stores the value of a typed key when the body returns.
        ///
        /// ```swift
        /// try transaction.set(0.5, for: .volume)
        /// ```
        public func set<Value>(_ value: Value, for key: Key<Value>) throws {
            let stored: PreferenceValue?
            do { stored = try key.encode(value) } catch var error as StashError {
                error.key = key.name
                throw error
            }
            try write(stored, forKey: key.name)
        }

        /// Removes the stored value of `key` when the body returns.
        ///
        /// ```swift
        /// try transaction.removeValue(forKey: "pendingOrder")
        /// ```
        public func removeValue(forKey key: String) throws {
            try write(nil, forKey: key)
        }

        /// Removes the stored value of a typed key when the body returns.
        ///
        /// ```swift
        /// try transaction.removeValue(for: .volume)
        /// ```
        public func removeValue<Value>(for key: Key<Value>) throws {
            try write(nil, forKey: key.name)
        }

        /// Records the write of `value` (`nil` removes), keeping the key's expiry date.
        func write(_ value: PreferenceValue?, forKey key: String) throws {
            guard let engine else { throw StashError(.closed, "the transaction has ended", key: key) }
            let key = try PreferencesEngine.storedKey(key)
            pending[key] = .some(value)
            let now = engine.clock.now.timeIntervalSince1970
            writes.append((key, value, engine.index[key]?.expiry.flatMap { $0 > now ? $0 : nil }))
        }
    }
}
