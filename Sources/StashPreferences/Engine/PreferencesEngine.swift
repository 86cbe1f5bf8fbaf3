import Foundation
import StashCore

/// The state of one open suite: the log file, the in-memory index of its live records, the
/// registered and volatile domains.
///
/// Thread-safe only through ``withLock(_:)``, which ``Preferences`` takes for every call.
/// Cross-process safety
/// comes from the suite's file lock (`<file>.lock`, flock), held for every append,
/// compaction and catch-up, and from the change counter in the file's header, which every
/// access compares with the last one seen.
///
/// The file lock lingers: once taken, it stays held for ``lockLinger`` so that a burst of
/// sets pays for two flock calls once, not per set (they were half the cost of a set).
/// Another process waits at most that long; the lock is still released when the process
/// dies, and every record is complete in the log before the header counts it, so a crash
/// while the lock is held loses nothing that was acknowledged.
final class PreferencesEngine: @unchecked Sendable {  // every use holds `mutex`
    /// One live key: its value and where its record sits in the log.
    struct Entry {
        var value: PreferenceValue
        /// Seconds since 1970 after which the value is gone.
        var expiry: Double?
        var offset: Int
        var length: Int
    }

    /// The lock every use of the engine holds. The engine is lent by reference, not as an
    /// `inout` value (as a `LockedValue` would): that spared each read a dynamic exclusivity
    /// check, a tenth of its time.
    private let mutex = Lock()

    let url: URL?
    let durable: Bool
    let clock: any StashClock
    private let fileLock: FileLock?
    /// Whether this engine holds the file lock (between a write and the linger's end).
    @exclusivity(unchecked) private var holdsFileLock = false
    /// Arranges for ``releaseFileLock()`` to run after ``lockLinger``; without it (while
    /// opening, for instance) the lock is released as soon as the work is done.
    var scheduleRelease: (@Sendable () -> Void)? {
        didSet { lingers = scheduleRelease != nil && !isSuspended }
    }
    /// How long the file lock stays held after a write, for the writes that follow.
    static let lockLinger: TimeInterval = 0.001
    /// Set by `Preferences.suspend()`: the lock is released as soon as each write is done.
    @exclusivity(unchecked) var isSuspended = false {
        didSet { lingers = scheduleRelease != nil && !isSuspended }
    }
    /// Whether the file lock stays held after a write (``scheduleRelease`` is set and the
    /// suite is not suspended): one flag for each write to test.
    @exclusivity(unchecked) private var lingers = false
    /// Runs when the file lock is released after a commit under it (it posts the suite's signal).
    var committed: (() -> Void)?
    private var counterAtLock: UInt64?  // the header's change counter when the file lock was taken
    // The state a read or a write touches is unchecked for exclusivity: every access holds
    // `mutex`, and the dynamic checks (a thread-local access set per property) were a tenth
    // of a read and a twentieth of a write.
    @exclusivity(unchecked) var log: LogFile?

    /// The live keys (``KeyIndex``).
    @exclusivity(unchecked) private(set) var index = KeyIndex()
    /// Bytes of the records the index points at; the rest of the log is dead.
    @exclusivity(unchecked) private(set) var liveBytes = 0
    /// Where this process believes the log ends.
    @exclusivity(unchecked) private(set) var localEnd = LogFile.headerSize
    /// The header's change counter when this process last caught up.
    @exclusivity(unchecked) private var knownCounter: UInt64 = 0
    /// The open group at ``localEnd`` (format version 3).
    @exclusivity(unchecked) private(set) var group = RecordGroup(start: LogFile.headerSize)
    @exclusivity(unchecked) private var encoder = RecordEncoder()

    var registered: [String: PreferenceValue] = [:] {
        didSet { hasOtherDomains = !registered.isEmpty || !volatile.isEmpty }
    }
    var volatile: [String: PreferenceValue] = [:] {
        didSet { hasOtherDomains = !registered.isEmpty || !volatile.isEmpty }
    }
    /// Whether a read must look beyond the stored values: one flag for a read to test
    /// instead of two dictionaries.
    @exclusivity(unchecked) private var hasOtherDomains = false
    var recovery: Preferences.RecoveryReport?
    @exclusivity(unchecked) var isClosed = false
    /// The error of the last subscript set, which cannot throw.
    var lastError: StashError?
    /// Whether changes should be collected for observers.
    @exclusivity(unchecked) var isObserved = false
    /// Changes since the last drain, for observers.
    @exclusivity(unchecked) var pendingChanges: [PreferenceChange] = []
    /// The number of the next batch ``drainChanges()`` hands out.
    private var nextBatch: UInt64 = 0

    /// An engine with no file: values live as long as the process.
    init(clock: any StashClock) {
        url = nil
        durable = false
        self.clock = clock
        fileLock = nil
    }

    /// Opens (creating it if missing) the log at `url`, recovering from a torn or corrupt tail.
    init(url: URL, durable: Bool, clock: any StashClock) throws {
        self.url = url
        self.durable = durable
        self.clock = clock
        try FileStore.createFolder(url.deletingLastPathComponent())
        fileLock = try FileLock(url: URL(fileURLWithPath: url.path + ".lock"), scope: .processesOnly)
        try withFileLock { try openLog(isReopen: false) }
    }

    /// Runs `body` with the engine's lock held.
    @inline(__always)
    func withLock<T, E: Error>(_ body: (PreferencesEngine) throws(E) -> T) throws(E) -> T {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(self)
    }

    func close() {
        releaseFileLock()
        log?.close()
        log = nil
        isClosed = true
    }

    // MARK: Reading

    /// The stored value of `key` (already in its stored form, see ``storedKey(_:)``),
    /// unless it has expired.
    func storedValue(_ key: String) -> PreferenceValue? {
        storedValue(key, hash: KeyHash.hash(key).hash)
    }

    /// The stored value of `key` (already in its stored form, its ``KeyHash`` `hash`),
    /// unless it has expired.
    @inline(__always)
    func storedValue(_ key: String, hash: UInt64) -> PreferenceValue? {
        guard let position = index.position(of: key, hash: hash) else { return nil }
        let entry = index.elements[position].entry
        if let expiry = entry.expiry, expiry <= clock.now.timeIntervalSince1970 { return nil }
        return entry.value
    }

    /// The value `key` resolves to (see ``resolvedValue(_:)``), once caught up with other
    /// processes, and the changes that catching up produced for observers: a read, in one
    /// call under the lock.
    @inline(__always)
    func read(_ key: String) -> (PreferenceValue?, ChangeBatch?) {
        guard let log, log.changeCounter != knownCounter else { return (resolvedValue(key), nil) }
        try? withFileLock {}
        return (resolvedValue(key), drainChanges())
    }

    /// The changes collected for observers since the last drain, numbered for
    /// ``ChangeDelivery``, or `nil` when there are none (or no one observes).
    @inline(__always)
    func drainChanges() -> ChangeBatch? {
        guard isObserved, !pendingChanges.isEmpty else { return nil }
        defer {
            pendingChanges.removeAll()
            nextBatch &+= 1
        }
        return ChangeBatch(sequence: nextBatch, changes: pendingChanges)
    }

    /// The value `key` resolves to: volatile, then stored, then registered.
    ///
    /// A plain ASCII key (told in the pass that hashes it) is its own stored form; any
    /// other is normalized first (``storedKey(_:)``).
    @inline(__always)
    func resolvedValue(_ key: String) -> PreferenceValue? {
        var (hash, isStored) = KeyHash.hash(key)
        var key = key
        if !isStored {
            guard let normalized = try? PreferencesEngine.storedKey(key) else { return nil }
            key = normalized
            hash = KeyHash.hash(key).hash
        }
        guard hasOtherDomains else { return storedValue(key, hash: hash) }
        if !volatile.isEmpty, let value = volatile[key] { return value }
        if let value = storedValue(key, hash: hash) { return value }
        return registered.isEmpty ? nil : registered[key]
    }

    /// The keys with a stored, unexpired value.
    var storedKeys: [String] {
        let now = clock.now.timeIntervalSince1970
        return index.elements.compactMap { element in
            if let expiry = element.entry.expiry, expiry <= now { return nil }
            return element.key
        }
    }

    /// The form a key is stored and looked up in (``StoredKey``): its NFC normalization, so
    /// that canonically equivalent keys are one key before and after a reopen.
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidKey`` for a key holding NUL.
    @inline(__always)
    static func storedKey(_ key: String) throws -> String {
        try StoredKey.normalized(key)
    }

    // MARK: Seeing other processes

    /// Catches up with what other processes appended since the last access. Cheap when
    /// nothing changed: one load from the mapped header.
    @inline(__always)
    func refresh() throws {
        guard let log else {
            if isClosed { throw StashError(.closed, "the preferences were closed", path: url?.path) }
            return
        }
        guard log.changeCounter != knownCounter else { return }
        try withFileLock {}
    }

    /// Applies other processes' records; the file lock is held.
    private func catchUp() throws {
        guard let log else { return }
        let counter = log.changeCounter
        guard log.loadCommit(), !log.isRetired, log.version == LogFile.version, log.end >= localEnd,
              try applyAppended(log.current) else {
            // Another process compacted the log into a new file (or the log is not what this
            // process left it as): read the file that is now the suite's.
            return try reopen()
        }
        knownCounter = counter
    }

    /// Verifies and applies the records other processes appended since ``localEnd``, up to
    /// `commit`: they must continue this process's open group and end where the commit says,
    /// with its checksum. `false` (nothing applied) when they do not.
    private func applyAppended(_ commit: LogFile.Commit) throws -> Bool {
        guard let log else { return false }
        if commit.end > log.mappedSize { try log.remap() }
        guard let base = log.base, commit.end <= log.mappedSize else { return false }
        var records: [(Record, Int)] = []
        guard let next = LogScanner.continuation(base, of: group, from: localEnd, to: commit),
              LogScanner.decode(base, localEnd..<commit.end, into: &records, skippingGroupEnds: true) else { return false }
        for (record, offset) in records {
            apply(record.kind, key: record.key, value: record.value, expiry: record.expiry,
                  offset: offset, length: record.length, byOtherProcess: true)
        }
        group = next
        localEnd = commit.end
        return true
    }

    /// Reads the suite's file again from the start (after a compaction elsewhere), telling
    /// observers what differs.
    private func reopen() throws {
        let previous = index
        let observed = isObserved
        isObserved = false
        defer { isObserved = observed }
        try openLog(isReopen: true)
        if observed { reportDifferences(from: previous) }
    }

    // MARK: Writing

    /// Stores `value` (or removes the key, for `nil`), appending one record to the log.
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidKey``, ``/StashCore/StashError/Code/unsupportedValue`` (a value
    ///   too large), ``/StashCore/StashError/Code/diskFull``, ``/StashCore/StashError/Code/closed``.
    func write(_ key: String, _ value: PreferenceValue?, expiry: Double? = nil) throws {
        if isClosed { throw StashError(.closed, "the preferences were closed", path: url?.path) }
        let key = try PreferencesEngine.storedKey(key)
        let kind: Record.Kind = value == nil ? .remove : (expiry == nil ? .set : .setExpiring)
        try encoder.encode(kind, key: key, value: value, expiry: expiry)
        guard log != nil, fileLock != nil else {
            apply(kind, key: key, value: value, expiry: expiry, offset: 0, length: encoder.count, byOtherProcess: false)
            return
        }
        try withFileLock { try append(kind, key: key, value: value, expiry: expiry) }
    }

    /// Removes every stored key with one record.
    func removeAll() throws {
        if isClosed { throw StashError(.closed, "the preferences were closed", path: url?.path) }
        try encoder.encode(.removeAll, key: "", value: nil, expiry: nil)
        guard log != nil, fileLock != nil else {
            apply(.removeAll, key: "", value: nil, expiry: nil, offset: 0, length: encoder.count, byOtherProcess: false)
            return
        }
        try withFileLock { try append(.removeAll, key: "", value: nil, expiry: nil) }
    }

    /// One change of a ``write(batch:)``: a value to store (`nil` removes the key) and its
    /// expiry date (seconds since 1970).
    typealias Change = (key: String, value: PreferenceValue?, expiry: Double?)

    /// Applies `changes` (a transaction's writes, an import) as one commit: every record is
    /// encoded and checked first, room for all of them is reserved (the file grown or
    /// compacted), then they are copied and one commit publishes them. When anything
    /// fails, a full disk included, nothing of the batch is in the log, for this process or
    /// another; a crash before the commit leaves none of it either.
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidKey``, ``/StashCore/StashError/Code/unsupportedValue``,
    ///   ``/StashCore/StashError/Code/diskFull``, ``/StashCore/StashError/Code/closed``, and the error of the
    ///   msync of a durable store (the batch is applied whole then, perhaps not on the device).
    func write(batch changes: [Change]) throws {
        if isClosed { throw StashError(.closed, "the preferences were closed", path: url?.path) }
        var records: [(kind: Record.Kind, key: String, change: Change, bytes: [UInt8])] = []
        records.reserveCapacity(changes.count)
        var room = 0
        for change in changes {
            let key = try PreferencesEngine.storedKey(change.key)
            let kind: Record.Kind = change.value == nil ? .remove : (change.expiry == nil ? .set : .setExpiring)
            try encoder.encode(kind, key: key, value: change.value, expiry: change.expiry)
            records.append((kind, key, change, encoder.withBytes { Array($0) }))
            // Each record may close its group: room for a group end after every one.
            room += encoder.count + Record.maximumGroupEndLength
        }
        try withFileLock {
            var offsets = [Int](repeating: 0, count: records.count)
            if log != nil, fileLock != nil {
                // A compaction may replace the log: it is read again after.
                try reserve(room)
                guard let log, let base = log.base else { throw StashError(.closed, "the log is not mapped", path: url?.path) }
                for (position, record) in records.enumerated() {
                    let offset = localEnd
                    offsets[position] = offset
                    localEnd = record.bytes.withUnsafeBytes { group.append($0, to: base, at: offset) }
                }
                // Every record is in place before the one commit that covers them all.
                log.publish(group.commit(counter: log.nextCounter, end: localEnd))
                knownCounter = log.changeCounter
            }
            for (record, offset) in zip(records, offsets) {
                apply(record.kind, key: record.key, value: record.change.value, expiry: record.change.expiry,
                      offset: offset, length: record.bytes.count, byOtherProcess: false)
            }
            if durable { try log?.sync(metadata: false) }
        }
    }

    /// Copies the record in `encoder` to the end of the log and publishes it; the file lock
    /// is held.
    @inline(__always)
    private func append(_ kind: Record.Kind, key: String, value: PreferenceValue?, expiry: Double?, sync: Bool = true) throws {
        let length = encoder.count
        try reserve(length + Record.maximumGroupEndLength)
        guard let log, let base = log.base else { throw StashError(.closed, "the log is not mapped", path: url?.path) }
        let offset = localEnd
        localEnd = encoder.withBytes { group.append($0, to: base, at: offset) }
        // The record is in place before the header's commit says so: a reader (or a crash)
        // never sees a commit that covers a half-copied record.
        log.publish(group.commit(counter: log.nextCounter, end: localEnd))
        knownCounter = log.changeCounter
        apply(kind, key: key, value: value, expiry: expiry, offset: offset, length: length, byOtherProcess: false)
        if sync && durable { try log.sync(metadata: false) }
    }

    // MARK: Index

    /// Applies one record to the index and reports the change to observers.
    func apply(
        _ kind: Record.Kind, key: String, value: PreferenceValue?, expiry: Double?,
        offset: Int, length: Int, byOtherProcess: Bool
    ) {
        if isObserved {
            switch kind {
            case .set, .setExpiring:
                if let value { pendingChanges.append(PreferenceChange(key: key, value: value, isFromOtherProcess: byOtherProcess)) }
            case .remove:
                if index[key] != nil { pendingChanges.append(PreferenceChange(key: key, value: nil, isFromOtherProcess: byOtherProcess)) }
            case .removeAll:
                for element in index.elements { pendingChanges.append(PreferenceChange(key: element.key, value: nil, isFromOtherProcess: byOtherProcess)) }
            case .groupEnd:
                break
            }
        }
        PreferencesEngine.apply(kind, key: key, value: value, expiry: expiry, offset: offset, length: length, to: &index, liveBytes: &liveBytes)
    }

    /// Rebuilds the index from the current file (after a compaction elsewhere or on open).
    func resetIndex(end: Int, counter: UInt64) {
        index.removeAll(keepingCapacity: true)
        liveBytes = 0
        localEnd = end
        knownCounter = counter
        group = RecordGroup(start: end)
    }

    /// The most index entries an open reserves ahead (beyond, the index grows as usual).
    static let maximumReservation = 1 << 19

    func adopt(index newIndex: KeyIndex, liveBytes newLiveBytes: Int, end: Int, group newGroup: RecordGroup, counter: UInt64) {
        index = newIndex
        liveBytes = newLiveBytes
        localEnd = end
        group = newGroup
        knownCounter = counter
    }

    /// Reports, to observers, every key whose value differs from `previous`.
    private func reportDifferences(from previous: KeyIndex) {
        for element in index.elements where previous[element.key]?.value != element.entry.value {
            pendingChanges.append(PreferenceChange(key: element.key, value: element.entry.value, isFromOtherProcess: true))
        }
        for key in previous.keys where index[key] == nil {
            pendingChanges.append(PreferenceChange(key: key, value: nil, isFromOtherProcess: true))
        }
    }

    /// Runs `body` with the suite's file lock held, once caught up with other processes
    /// (or directly, for an in-memory store). The lock then lingers (see ``lockLinger``).
    @inline(__always)
    func withFileLock<T>(_ body: () throws -> T) throws -> T {
        // Tested, not bound: a write while the lock lingers touches neither the lock nor the
        // release closure (binding them cost a retain and a release each).
        guard fileLock != nil else { return try body() }
        if !holdsFileLock { try takeFileLock() }
        defer { if !lingers { releaseFileLock() } }
        if log?.changeCounter != knownCounter { try catchUp() }
        return try body()
    }

    /// Takes the file lock for ``withFileLock(_:)`` and arranges its release.
    private func takeFileLock() throws {
        try fileLock?.lock()
        holdsFileLock = true
        counterAtLock = log?.changeCounter
        if !isSuspended { scheduleRelease?() }
    }

    /// Lets other processes have the file lock (the linger's end, or closing).
    func releaseFileLock() {
        guard holdsFileLock else { return }
        fileLock?.unlock()
        holdsFileLock = false
        if log?.changeCounter != counterAtLock { committed?() }
    }
}
