public import Foundation
public import StashCore

/// A typed key-value store for small settings: UserDefaults' model on a fast, crash-safe,
/// multi-process log.
///
/// ```swift
/// extension Preferences.Key where Value == Bool {
///     static let onboardingDone = Preferences.Key("onboardingDone", default: false)
/// }
///
/// let prefs = Preferences.standard
/// prefs[.onboardingDone] = true
/// if prefs[.onboardingDone] { … }
///
/// let shared = try Preferences(suite: "settings", group: "group.com.example")
/// try shared.set("dark", forKey: "theme")
/// ```
///
/// **Storage.** Each suite is one memory-mapped, append-only log file
/// (`<suite>.stashprefs` in ``/StashCore/Sandbox/preferences``, with a `<suite>.stashprefs.lock` beside
/// it). A set appends one record (records are checksummed in groups of up to 16, the open
/// group by the header's commit); reads come from an in-memory index. When most
/// of the log is dead (overwritten or removed values), it is compacted into a fresh file
/// that atomically replaces the old one.
///
/// **Durability.** When a set returns, the value survives a crash of the process (it is in
/// the kernel's page cache). It survives a power cut after ``flush()``, or after every set
/// with ``Options/durable``. On open, records are verified; a torn or corrupt tail is cut off
/// and described in ``recoveryReport``; open never fails because of damage.
///
/// **Threads and processes.** Every method is thread-safe. Several processes (and several
/// instances in one process) may use one suite: appends take the suite's file lock, and
/// every access first looks at the change counter in the file's header, so each sees the
/// others' writes on its next access, and observers see them within 50 ms. A
/// store keeps the file lock for a millisecond after a set, so that a burst of sets takes
/// it once; another process's access to a changed suite waits at most that long.
public final class Preferences: Sendable {
    /// How a store writes.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Flush every set to the device before it returns (msync): each value survives a
        /// power cut, at the cost of one device write per set.
        public static let durable = Options(rawValue: 1 << 0)
    }

    /// The file extension of a suite's log.
    public static let fileExtension = "stashprefs"

    /// How often, while someone observes, the store looks for other processes' changes.
    package static let watchInterval: TimeInterval = 0.05

    /// The suite's name.
    public let suite: String
    /// Whether values are kept in a file: `false` for ``init(inMemory:clock:)`` and for a
    /// ``standard`` store whose folder could not be opened, whose values are lost at exit.
    ///
    /// ```swift
    /// if !prefs.isPersistent { print("settings will not survive a relaunch") }
    /// ```
    public var isPersistent: Bool { url != nil }
    /// The log file, or `nil` for an in-memory store.
    public let url: URL?
    /// How the store writes.
    public let options: Options

    let engine: PreferencesEngine
    let observers = LockedValue(ObserverRegistry())
    /// Keeps deliveries to observers in the engine's order.
    let delivery = ChangeDelivery()
    /// Posted when a commit is done (the file lock released), so that observers elsewhere look at once.
    let signal: ChangeSignal?

    /// The application's own preferences: the suite named after the app, in
    /// `Sandbox.main`'s preferences folder.
    ///
    /// When that folder cannot be opened (a read-only home, say), the store keeps its values
    /// in memory only: ``isPersistent`` is then `false` and ``recoveryReport`` says why. An
    /// app that must know opens its suite with `try Preferences()` instead, which throws.
    ///
    /// ```swift
    /// Preferences.standard[.volume] = 0.5
    /// if !Preferences.standard.isPersistent { warn(Preferences.standard.recoveryReport?.reason) }
    /// ```
    public static let standard: Preferences = {
        let sandbox = Sandbox.main
        do {
            return try Preferences(sandbox: sandbox)
        } catch {
            let memory = Preferences(inMemory: sandbox.app)
            memory.engine.withLock {
                $0.recovery = RecoveryReport(
                    droppedBytes: 0, keptRecords: 0, damageOffset: 0, movedAside: nil, damagedKeys: [],
                    reason: "the preferences could not be opened (\(error)); values are kept in memory only"
                )
            }
            return memory
        }
    }()

    /// Opens (creating it when missing) a suite in a sandbox's preferences folder.
    ///
    /// ```swift
    /// let prefs = try Preferences(suite: "com.example.settings", sandbox: sandbox)
    /// ```
    ///
    /// - parameters:
    ///   - suite: The suite's name (a file name); `nil` for the app's own suite, named after
    ///     the sandbox's application identifier.
    ///   - sandbox: Whose preferences folder.
    ///   - options: ``Options/durable`` to flush every set to the device.
    ///   - clock: The clock that expiring values are measured with.
    /// - throws: ``/StashCore/StashError/Code/invalidName`` for a bad suite name, ``/StashCore/StashError`` when the
    ///   folder or file cannot be created, ``/StashCore/StashError/Code/unsupportedVersion`` for a log
    ///   written by a newer format.
    public convenience init(
        suite: String? = nil, sandbox: Sandbox = .main, options: Options = [], clock: any StashClock = SystemClock()
    ) throws {
        let name = suite ?? sandbox.app
        try Sandbox.validate(name: name, what: "suite name")
        let folder = try sandbox.url(for: .preferences)
        try self.init(url: folder.appendingPathComponent("\(name).\(Preferences.fileExtension)"), suite: name, options: options, clock: clock)
    }

    /// Opens a suite in the shared container of an app group, so that several apps of one
    /// vendor (and their extensions) share it.
    ///
    /// ```swift
    /// let shared = try Preferences(suite: "shared", group: "group.com.example")
    /// ```
    ///
    /// The log lives in `<group container>/Library/Preferences/<suite>.stashprefs`.
    public convenience init(
        suite: String, group: String, sandbox: Sandbox = .main, options: Options = [], clock: any StashClock = SystemClock()
    ) throws {
        try Sandbox.validate(name: suite, what: "suite name")
        let folder = try sandbox.groupContainer(group).appendingPathComponent("Library/Preferences", isDirectory: true)
        try self.init(url: folder.appendingPathComponent("\(suite).\(Preferences.fileExtension)"), suite: suite, options: options, clock: clock)
    }

    /// Opens (creating it when missing) the log at `url`.
    ///
    /// ```swift
    /// let prefs = try Preferences(url: folder.appendingPathComponent("settings.stashprefs"))
    /// ```
    public convenience init(url: URL, options: Options = [], clock: any StashClock = SystemClock()) throws {
        let suite = url.deletingPathExtension().lastPathComponent
        try self.init(url: url, suite: suite, options: options, clock: clock)
    }

    private init(url: URL, suite: String, options: Options, clock: any StashClock) throws {
        self.suite = suite
        self.url = url
        self.options = options
        let engine = try PreferencesEngine(url: url, durable: options.contains(.durable), clock: clock)
        // The file lock lingers after a write for the writes that follow; this lets it go.
        let signal = ChangeSignal(file: url)
        self.signal = signal
        engine.withLock {
            $0.committed = signal.post
            $0.scheduleRelease = { [weak engine] in
                guard let engine else { return }
                DispatchQueue.global().asyncAfter(deadline: .now() + PreferencesEngine.lockLinger) { [weak engine] in
                    engine?.withLock { $0.releaseFileLock() }
                }
            }
        }
        self.engine = engine
    }

    /// A store that keeps its values in memory only: for previews and tests.
    ///
    /// ```swift
    /// let prefs = Preferences(inMemory: "preview", clock: ManualClock())
    /// ```
    public init(inMemory suite: String = "memory", clock: any StashClock = SystemClock()) {
        self.suite = suite
        url = nil
        options = []
        signal = nil
        engine = PreferencesEngine(clock: clock)
    }

    deinit {
        observers.withLock { $0.stopWatching() }
    }

    // MARK: Maintenance

    /// What opening this suite cut off from a damaged log, or `nil` when it opened cleanly.
    public var recoveryReport: RecoveryReport? { engine.withLock { $0.recovery } }

    /// The error of the last subscript set that failed (subscript setters cannot throw).
    public var lastError: StashError? { engine.withLock { $0.lastError } }

    /// Flushes every acknowledged set to the device: after it returns, they survive a
    /// power cut.
    ///
    /// - throws: ``/StashCore/StashError`` when msync or fsync fails.
    public func flush() throws {
        try engine.withLock { engine throws(any Error) in
            try engine.refresh()
            try engine.log?.sync(metadata: true)
        }
    }

    /// Rewrites the log with only its live values, now. Stores compact on their own when
    /// most of the log is dead; call this to reclaim space at once (after a large removal).
    ///
    /// - throws: ``/StashCore/StashError/Code/diskFull`` when there is no room for the new file; the old
    ///   one is then untouched.
    public func compact() throws {
        try run { try $0.compact() }
    }

    /// Closes the log. Later writes throw ``/StashCore/StashError/Code/closed``; reads return defaults.
    public func close() {
        let observers = observers.withLock { $0.removeAll() }
        engine.withLock { $0.close() }
        for observer in observers { observer.finish() }
    }

    /// Figures about the log file: for tools, tests and benchmarks.
    package struct Storage: Sendable, Hashable {
        /// The file's size on disk (allocated ahead of need).
        package var fileSize: Int
        /// Bytes of header and records written so far.
        package var usedBytes: Int
        /// Bytes of records holding live values.
        package var liveBytes: Int
        /// How many keys have a stored value.
        package var keyCount: Int
        /// How many times the log has been compacted since it was created.
        package var generation: UInt64
    }

    /// The current size and use of the log.
    package var storage: Storage {
        engine.withLock { engine in
            try? engine.refresh()
            return Storage(
                fileSize: (try? engine.log?.fileSize()) ?? 0,
                usedBytes: engine.localEnd,
                liveBytes: engine.liveBytes,
                keyCount: engine.index.count,
                generation: engine.log.map { $0.generation &- 1 } ?? 0
            )
        }
    }

    // MARK: Running engine operations

    /// Runs `body` on the engine under its lock, then hands the changes it produced to
    /// observers once the lock is released, after those of every operation before it.
    @inline(__always)
    func run<T>(_ body: (PreferencesEngine) throws -> T) throws -> T {
        let (result, changes) = try engine.withLock { engine throws(any Error) -> (T, ChangeBatch?) in
            (try body(engine), engine.drainChanges())
        }
        if let changes { deliver(changes) }
        return result
    }
}
