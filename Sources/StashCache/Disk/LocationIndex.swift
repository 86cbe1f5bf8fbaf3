import Foundation
import StashCore

/// Where the records of a writer's small values are in the ``ValueLog``: a hash table from a
/// keyed hash of each key to its record's location, in a mapped file (`locations`), so that
/// a read finds a value with one probe and one `pread`, without the manifest.
///
/// **A slot is a claim the record checks.** A slot holds the upper 32 bits of its key's
/// hash (its tag, whose upper bits are also its home slot) and a location; a read takes
/// a location only when the record there is its key's, byte for byte (``ValueLogRecord``).
/// Keys that share a tag share one slot: each write or lookup of one takes it over, and
/// the other is read through the manifest meanwhile. At most ``maximumProbe`` slots are
/// searched from a key's home, and a key that finds no room within them is not indexed. So
/// however keys are chosen, a lookup costs a bounded search, and what the index cannot
/// hold costs a manifest lookup, never a wrong answer.
///
/// **It follows the manifest exactly.** A slot names the current record of the key that
/// last took it:
/// the writer changes slots under its state lock right after each commit (written values,
/// removals, records moved by compaction), and a lookup through the manifest adds the slot
/// it found. The file is trusted at open only if the last writer closed it cleanly at the
/// manifest's current generation (``init(path:generation:)``); otherwise it starts empty and
/// fills again as keys are read:
/// - a writer marks the file open in its header when it opens it, and clean when it closes
///   it, after writing every slot to disk (`msync`). A crash of the process leaves the mark
///   open in the system's file cache, so the next writer starts over.
/// - A power cut may leave any mix of pages on disk. If a commit made after the index was
///   opened survived, the manifest's generation is ahead of the header's, and the next
///   writer starts over. If none did, the slots written since name only records of lost
///   commits, past their segment's committed end: the log cuts those bytes at open
///   (``ValueLog/reconcile(committed:)``), so such a slot reads as no record.
///
/// Not thread-safe: the writer's state lock guards it.
final class LocationIndex {
    private let path: String
    private var fd: Int32 = -1
    private var base: UnsafeMutableRawPointer?
    private var mappedSize = 0
    private(set) var capacity = 0
    private var bits = 0
    private var hasher = SipHash(key: (0, 0))
    /// The hash key of a new table: random unless a test chose one.
    private let newHashKey: (UInt64, UInt64)?

    static let headerSize = 64
    static let slotSize = 16
    static let minimumCapacity = 1 << 10
    static let maximumProbe = 64
    /// The most slots a table may have (4 GB of file, hundreds of millions of keys; 256 MB
    /// where `Int` has 32 bits, so that sizes stay in range): a header claiming more is taken
    /// as crafted. A full table of this size files no more.
    static let maximumCapacity = MemoryLayout<Int>.size >= 8 ? 1 << 28 : 1 << 24
    private static let magic: UInt64 = 0x3158_434F_4C48_5453 // "STSHLOCX", version 1
    private enum Field: Int { case magic = 0, capacity = 8, count = 16, generation = 24, state = 32, key0 = 40, key1 = 48 }
    private static let clean: UInt64 = 0, open: UInt64 = 1

    /// The index at `path` as the last writer left it, when it closed it cleanly at
    /// `generation` (the manifest's now); otherwise a new, empty one with room for `entries`
    /// keys (the manifest's count), so that the reads filing them again never make it grow.
    /// Either way it is then marked open, so that a crash before ``close()`` makes the next
    /// open start over.
    ///
    /// - throws: the errors of creating, sizing or mapping the file.
    init(path: String, generation: Int64, entries: Int = 0, hashKey: (UInt64, UInt64)? = nil) throws {
        self.path = path
        newHashKey = hashKey
        fd = SystemCalls.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StashError.posix("open", path: path) }
        do {
            if !(try adopt(generation: generation)) { try reset(generation: generation, capacity: Self.capacity(for: entries)) }
            header(.state, Self.open)
        } catch {
            unmap()
            SystemCalls.close(fd)
            fd = -1
            throw error
        }
    }

    deinit { try? close() }

    /// The smallest table that holds `entries` keys at most half full: far enough below the
    /// load at which it doubles that the reads filing them again almost never find their
    /// home crowded past ``maximumProbe`` slots (a key that does is read through the manifest).
    static func capacity(for entries: Int) -> Int {
        var capacity = minimumCapacity
        while capacity < maximumCapacity, entries > capacity / 2 { capacity *= 2 }
        return capacity
    }

    /// The number of keys indexed (as the header counts them: a header from a crafted file or
    /// a power cut may say more or less, which only moves the next doubling).
    var count: Int { Int(min(header(.count), UInt64(capacity))) }

    /// The hash of `key` (its UTF-8 bytes) the index files it under.
    func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 { hasher.hash(key) }

    /// The hash of `key` the index files it under.
    func hash(_ key: String) -> UInt64 {
        var key = key
        return key.withUTF8 { hasher.hash($0) }
    }

    /// Calls `isRecord` with each location filed under `hash`'s tag, in probe order, until it
    /// returns `true` (the record there is the key's); returns whether one did.
    func find(_ hash: UInt64, isRecord: (ValueLocation) -> Bool) -> Bool {
        guard let slots = slots else { return false }
        let tag = UInt32(truncatingIfNeeded: hash >> 32)
        var index = home(tag)
        for _ in 0..<Self.maximumProbe {
            let slot = slots + index * Self.slotSize
            let span = slot.load(fromByteOffset: 4, as: UInt32.self)
            if span == 0 { return false }
            if slot.load(as: UInt32.self) == tag,
               let location = ValueLocation(packed: slot.load(fromByteOffset: 8, as: Int64.self), span: Int64(span)),
               isRecord(location) {
                return true
            }
            index = (index + 1) & (capacity - 1)
        }
        return false
    }

    /// Files `location` under `hash` (taking over the slot of its tag), or with `nil` empties
    /// that slot. A key whose home has no room within ``maximumProbe`` slots makes the table
    /// double when it is at least half full, and is not filed when it is not. Unless
    /// `mayGrow`, a key that would make the table double is not filed: a read files what it
    /// found, and must not rewrite the whole table (the writer's next commit may).
    func set(_ location: ValueLocation?, for hash: UInt64, mayGrow: Bool = true) {
        guard let slots else { return }
        let tag = UInt32(truncatingIfNeeded: hash >> 32)
        var index = home(tag)
        for _ in 0..<Self.maximumProbe {
            let slot = slots + index * Self.slotSize
            let empty = slot.load(fromByteOffset: 4, as: UInt32.self) == 0
            if empty || slot.load(as: UInt32.self) == tag {
                guard let location else {
                    if !empty { remove(at: index) }
                    return
                }
                guard Int64(location.span) <= Int64(UInt32.max) else { return }
                if empty {
                    if (count + 1) * 4 > capacity * 3, capacity < Self.maximumCapacity {
                        guard mayGrow else { return }
                        grow()
                        set(location, for: hash)
                        return
                    }
                    header(.count, min(header(.count), UInt64(capacity)) + 1)
                }
                slot.storeBytes(of: tag, as: UInt32.self)
                slot.storeBytes(of: UInt32(location.span), toByteOffset: 4, as: UInt32.self)
                slot.storeBytes(of: location.packed, toByteOffset: 8, as: Int64.self)
                return
            }
            index = (index + 1) & (capacity - 1)
        }
        // No room near its home: in a table at least half full (as linear probing crowds
        // some stretches long before the average fills), room is made; otherwise the keys
        // crowding this home are rare or chosen, and this one is not filed.
        if location != nil, mayGrow, count * 2 >= capacity, capacity < Self.maximumCapacity {
            grow()
            set(location, for: hash)
        }
    }

    /// Empties every slot (the manifest changed in a way the index did not follow).
    func removeAll(generation: Int64) throws {
        try reset(generation: generation, capacity: Self.minimumCapacity)
        header(.state, Self.open)
    }

    /// Records that the slots now follow the manifest at `generation`.
    func follow(_ generation: Int64) {
        header(.generation, UInt64(bitPattern: generation))
    }

    /// Writes the slots to disk, then marks the file closed cleanly at the generation last
    /// followed, and unmaps it. The index is unusable after it (an empty table).
    func close() throws {
        guard fd >= 0 else { return }
        defer {
            unmap()
            SystemCalls.close(fd)
            fd = -1
        }
        try sync(count: mappedSize)
        header(.state, Self.clean)
        try sync(count: Self.headerSize)
    }

    // MARK: - The table

    private var slots: UnsafeMutableRawPointer? { base.map { $0 + Self.headerSize } }

    /// The home slot of `tag`: its upper bits.
    private func home(_ tag: UInt32) -> Int {
        Int(UInt64(tag) >> (32 - bits))
    }

    /// Empties slot `index` and moves the slots after it in its cluster back toward their
    /// homes, so that every key stays reachable from its home without tombstones.
    private func remove(at index: Int) {
        guard let slots else { return }
        let mask = capacity - 1
        var hole = index
        var next = (index + 1) & mask
        // At most the whole table, should a crafted file have left no slot empty.
        for _ in 1..<capacity {
            let slot = slots + next * Self.slotSize
            if slot.load(fromByteOffset: 4, as: UInt32.self) == 0 { break }
            let home = home(slot.load(as: UInt32.self))
            // The slot may fill the hole when its home is not after the hole (cyclically).
            if (next - home) & mask >= (next - hole) & mask {
                (slots + hole * Self.slotSize).copyMemory(from: slot, byteCount: Self.slotSize)
                hole = next
            }
            next = (next + 1) & mask
        }
        (slots + hole * Self.slotSize).initializeMemory(as: UInt8.self, repeating: 0, count: Self.slotSize)
        header(.count, max(header(.count), 1) - 1)
    }

    /// Doubles the table, filing every slot again.
    private func grow() {
        guard let slots, capacity < Self.maximumCapacity else { return }
        let old = Array(UnsafeRawBufferPointer(start: slots, count: capacity * Self.slotSize))
        let oldCapacity = capacity
        do {
            try reset(generation: Int64(bitPattern: header(.generation)), capacity: capacity * 2, key: hasher.key)
            header(.state, Self.open)
        } catch {
            // Left empty: the keys are read through the manifest and filed again.
            return
        }
        old.withUnsafeBytes { old in
            for index in 0..<oldCapacity {
                let slot = old.baseAddress! + index * Self.slotSize
                let span = slot.load(fromByteOffset: 4, as: UInt32.self)
                guard span != 0 else { continue }
                let tag = slot.load(as: UInt32.self)
                let location = ValueLocation(packed: slot.load(fromByteOffset: 8, as: Int64.self), span: Int64(span))
                set(location, for: UInt64(tag) << 32)
            }
        }
    }

    // MARK: - The file

    /// Checks, from its header read with `pread`, that the file was closed cleanly at
    /// `generation` and is the size its capacity says, then maps it. A file that is not is
    /// never mapped (a huge sparse one could not be).
    private func adopt(generation: Int64) throws -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StashError.posix("stat", path: path) }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: Self.headerSize)
        guard bytes.withUnsafeMutableBytes({ SystemCalls.pread(fd, $0.baseAddress!, Self.headerSize, at: 0) }) == Self.headerSize else { return false }
        func field(_ field: Field) -> UInt64 { bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: field.rawValue, as: UInt64.self)) } }
        let capacity = Int(truncatingIfNeeded: field(.capacity))
        guard field(.magic) == Self.magic, field(.state) == Self.clean, field(.generation) == UInt64(bitPattern: generation),
              capacity >= Self.minimumCapacity, capacity <= Self.maximumCapacity, capacity & (capacity - 1) == 0,
              size == Self.headerSize + capacity * Self.slotSize, field(.count) <= UInt64(capacity)
        else { return false }
        try map(size: size)
        self.capacity = capacity
        bits = capacity.trailingZeroBitCount
        hasher = SipHash(key: (header(.key0), header(.key1)))
        return true
    }

    /// Makes the file an empty table of `capacity` slots, hashing with `key` (a new one when
    /// `nil`: the slots of another key's hashes are all gone). Its blocks are allocated before
    /// it is mapped, so a full disk is an error here, never a `SIGBUS` at a store.
    private func reset(generation: Int64, capacity: Int, key: (UInt64, UInt64)? = nil) throws {
        unmap()
        let size = Self.headerSize + capacity * Self.slotSize
        guard SystemCalls.truncate(fd, to: 0, path: path) == 0 else { throw StashError.posix("truncate", path: path) }
        let status = FileStore.allocate(fd, from: 0, to: size, path: path)
        guard status == 0 else { throw StashError.posix(status, "allocate \(size) bytes", path: path) }
        try map(size: size)
        self.capacity = capacity
        bits = capacity.trailingZeroBitCount
        let key = key ?? newHashKey ?? SipHash.randomKey()
        hasher = SipHash(key: key)
        header(.magic, Self.magic)
        header(.capacity, UInt64(capacity))
        header(.count, 0)
        header(.generation, UInt64(bitPattern: generation))
        header(.key0, key.0)
        header(.key1, key.1)
    }

    private func map(size: Int) throws {
        unmap()
        guard let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), address != MAP_FAILED else {
            throw StashError.posix("mmap", path: path)
        }
        (base, mappedSize) = (address, size)
    }

    private func unmap() {
        if let base { munmap(base, mappedSize) }
        (base, mappedSize, capacity) = (nil, 0, 0)
    }

    private func sync(count: Int) throws {
        guard let base else { return }
        guard SystemCalls.msync(base, count, path: path) == 0 else { throw StashError.posix("msync", path: path) }
    }

    private func header(_ field: Field) -> UInt64 {
        base.map { UInt64(littleEndian: $0.load(fromByteOffset: field.rawValue, as: UInt64.self)) } ?? 0
    }

    private func header(_ field: Field, _ value: UInt64) {
        base?.storeBytes(of: value.littleEndian, toByteOffset: field.rawValue, as: UInt64.self)
    }
}
