import Foundation
import StashCore

/// The disk tier: one file per URL holding all its variants, written with
/// ``StashCore/FileStore``'s atomic write (temporary file, then rename), bounded by a byte
/// capacity with least recently used files removed first.
///
/// A process killed mid-write leaves at worst a hidden temporary file, removed when the
/// folder is next opened; the previous file stays whole. Files that do not decode are
/// treated as misses and deleted. Writes are process-safe (not fsynced): a power cut may
/// lose recent entries, which for a cache only means refetching. Thread-safe.
final class DiskResponseStorage: ResponseStorage {
    private struct State {
        var files: [String: (size: Int, lastUse: UInt64)] = [:]
        var totalSize = 0
        var tick: UInt64 = 0
    }

    let folder: URL
    let capacity: Int
    private let state = LockedValue(State())

    /// Opens (creating if needed) the cache folder and indexes what it holds.
    init(folder: URL, capacity: Int) throws {
        self.folder = folder
        self.capacity = max(0, capacity)
        try FileStore.createFolder(folder)
        var initial = State()
        for name in try FileStore.list(folder) {
            let url = folder.appendingPathComponent(name)
            if name.hasPrefix(".") {
                try? FileStore.delete(url)
                continue
            }
            let size = Int((try? FileStore.size(of: url)) ?? 0)
            initial.files[name] = (size, 0)
            initial.totalSize += size
        }
        state.withLock { $0 = initial }
    }

    func variants(for key: String) -> [StoredResponse] {
        let name = Self.fileName(for: key)
        let known = state.withLock { state -> Bool in
            guard state.files[name] != nil else { return false }
            state.tick += 1
            state.files[name]?.lastUse = state.tick
            return true
        }
        guard known else { return [] }
        let url = folder.appendingPathComponent(name)
        guard let data = try? FileStore.read(url) else { return [] }
        guard let decoded = StoredResponseCoding.decode(data) else {
            remove(name)
            return []
        }
        return decoded.key == key ? decoded.variants : []
    }

    func setVariants(_ variants: [StoredResponse], for key: String) {
        let name = Self.fileName(for: key)
        guard !variants.isEmpty else {
            remove(name)
            return
        }
        let data = StoredResponseCoding.encode(key: key, variants: variants)
        guard data.count <= capacity,
              (try? FileStore.write(data, to: folder.appendingPathComponent(name), durability: .processSafe)) != nil else {
            remove(name)
            return
        }
        let victims = state.withLock { state -> [String] in
            if let old = state.files[name] { state.totalSize -= old.size }
            state.tick += 1
            state.files[name] = (data.count, state.tick)
            state.totalSize += data.count
            return state.totalSize > capacity ? Self.evict(&state, downTo: capacity - capacity / 10, keeping: name) : []
        }
        for victim in victims { try? FileStore.delete(folder.appendingPathComponent(victim)) }
    }

    func removeAll() {
        let names = state.withLock { state -> [String] in
            defer { state = State() }
            return Array(state.files.keys)
        }
        for name in names { try? FileStore.delete(folder.appendingPathComponent(name)) }
    }

    var memoryUsage: Int { 0 }
    var diskUsage: Int { state.withLock { $0.totalSize } }

    private func remove(_ name: String) {
        let known = state.withLock { state -> Bool in
            guard let old = state.files.removeValue(forKey: name) else { return false }
            state.totalSize -= old.size
            return true
        }
        if known { try? FileStore.delete(folder.appendingPathComponent(name)) }
    }

    private static func evict(_ state: inout State, downTo target: Int, keeping kept: String) -> [String] {
        var victims: [String] = []
        for (name, file) in state.files.sorted(by: { $0.value.lastUse < $1.value.lastUse })
        where state.totalSize > target && name != kept {
            state.files[name] = nil
            state.totalSize -= file.size
            victims.append(name)
        }
        return victims
    }

    /// Two independent 64-bit FNV-1a hashes of the key; the key itself is stored in the file
    /// and checked on read, so even a collision cannot serve the wrong URL.
    static func fileName(for key: String) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in key.utf8 {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            second = (second &* 0x0000_0100_0000_01b3) ^ UInt64(byte)
        }
        return String(first, radix: 16) + String(second, radix: 16) + ".response"
    }
}
