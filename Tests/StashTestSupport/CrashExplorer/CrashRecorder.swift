import Foundation
import StashCore

/// A change to names between two observed moments: each changed name's new entry, or `nil`
/// when the name went away. A rename is one change of two names, kept or lost whole.
typealias NameChange = [String: FileEntry?]

/// An entry of the tree: a folder, or a file by an identity the recorder gives it (an inode
/// number can be reused once its file is gone; this identity is not).
enum FileEntry: Hashable, Sendable {
    case folder
    case file(Int)
}

/// A moment a power cut could strike: what was synced then, what was not, and what the
/// workload had been told was kept.
struct CrashPoint<Expectation> {
    /// Where the workload was, e.g. `before fsync #12 on values/00000001.log`.
    var label: String
    /// The names the last syncs made durable.
    var durableNames: [String: FileEntry]
    /// The changes to names since, in the order they were made.
    var pending: [NameChange]
    /// Each file's synced bytes (none: nothing of it synced).
    var durable: [Int: Data]
    /// Each file's bytes in the page cache (for a file no name holds any more, as last seen).
    var current: [Int: Data]
    /// Each file's permission bits, as last seen.
    var modes: [Int: mode_t]
    var expectation: Expectation
}

/// Watches a workload's file calls through ``FaultInjection/observe(folder:_:)`` and, before
/// each one, records a ``CrashPoint``; then applies what the call makes durable under the
/// ``PersistenceModel``. Thread-safe: the observer may be called from any thread.
final class CrashRecorder<Expectation>: @unchecked Sendable {  // every mutable field is used under `lock`
    private let root: String
    private let model: PersistenceModel
    private let expectation: @Sendable () -> Expectation
    private let lock = Lock()
    private var recorded: [CrashPoint<Expectation>] = []
    private var durableNames: [String: FileEntry] = [:]
    private var pending: [NameChange] = []
    private var durable: [Int: Data] = [:]
    private var names: [String: FileEntry] = [:]
    private var contents: [Int: Data] = [:]
    private var modes: [Int: mode_t] = [:]
    private var identities: [UInt64: Int] = [:]
    private var nextIdentity = 0
    private var calls = 0

    init(root: String, model: PersistenceModel, expectation: @escaping @Sendable () -> Expectation) {
        self.root = root
        self.model = model
        self.expectation = expectation
        lock.withLock { look() }
        durableNames = names
        durable = contents
    }

    var points: [CrashPoint<Expectation>] { lock.withLock { recorded } }

    /// The observer: records the moment before a call, then what the call syncs.
    func observe(_ observed: FaultInjection.Observed) {
        let (call, path, count) = (observed.call, observed.path, observed.count)
        lock.withLock {
            calls += 1
            look()
            record("before \(call.rawValue) #\(calls) on \(relative(path))")
            switch call {
            case .fsync:
                if let file = file(at: path, descriptor: observed.descriptor) { durable[file] = contents[file] }
                if model == .ext4Ordered { commit(folder: nil) }
            case .syncFolder:
                commit(folder: model == .ext4Ordered ? nil : relative(path))
            case .msync:
                guard let file = file(at: path, descriptor: observed.descriptor), let now = contents[file] else { break }
                var synced = durable[file] ?? Data()
                let end = min(count, now.count)
                if synced.count < end { synced.append(Data(count: end - synced.count)) }
                synced.replaceSubrange(0..<end, with: now[now.startIndex..<(now.startIndex + end)])
                durable[file] = synced
            default:
                break
            }
        }
    }

    /// Records the moment after the workload's last call.
    func finish() {
        lock.withLock {
            look()
            record("after the workload (\(calls) calls)")
        }
    }

    private func record(_ label: String) {
        recorded.append(CrashPoint(
            label: label, durableNames: durableNames, pending: pending, durable: durable, current: contents, modes: modes,
            expectation: expectation()
        ))
    }

    /// Reads the tree, notes how its names changed since the last look, and keeps each
    /// file's bytes (sharing the previous copy when they did not change).
    private func look() {
        let snapshot = FolderSnapshot.read(root)
        let present = Set(snapshot.contents.keys)
        identities = identities.filter { present.contains($0.key) }
        var now: [String: FileEntry] = [:]
        for (name, entry) in snapshot.names {
            switch entry {
            case .folder:
                now[name] = .folder
            case .file(let inode):
                let file = identities[inode] ?? {
                    nextIdentity += 1
                    identities[inode] = nextIdentity
                    return nextIdentity
                }()
                now[name] = .file(file)
                if let bytes = snapshot.contents[inode], contents[file] != bytes { contents[file] = bytes }
                modes[file] = snapshot.modes[inode]
            }
        }
        var change: NameChange = [:]
        for (name, entry) in now where names[name] != entry { change.updateValue(entry, forKey: name) }
        for name in names.keys where now[name] == nil { change.updateValue(nil, forKey: name) }
        if !change.isEmpty { pending.append(change) }
        names = now
    }

    /// Makes the pending changes to names durable: all of them, or those in one folder.
    private func commit(folder: String?) {
        var kept: [NameChange] = []
        for change in pending {
            var rest: NameChange = [:]
            for (name, entry) in change {
                if folder == nil || parent(of: name) == folder { durableNames[name] = entry } else { rest[name] = entry }
            }
            if !rest.isEmpty { kept.append(rest) }
        }
        pending = kept
    }

    /// The file a call acts on: the one open on its descriptor, or else the one at its path.
    private func file(at path: String, descriptor: Int32) -> Int? {
        var info = stat()
        if descriptor >= 0, fstat(descriptor, &info) == 0 { return identities[UInt64(info.st_ino)] }
        guard case .file(let file)? = names[relative(path)] else { return nil }
        return file
    }

    private func relative(_ path: String) -> String {
        path == root ? "" : path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}

/// The folder holding `name` (relative to the root; `""` for the root itself).
func parent(of name: String) -> String {
    guard let slash = name.lastIndex(of: "/") else { return "" }
    return String(name[..<slash])
}
