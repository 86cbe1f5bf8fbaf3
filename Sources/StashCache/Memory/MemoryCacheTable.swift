#if os(Linux) && canImport(Glibc)
import Glibc
#endif

/// The hash table of ``MemoryCacheStorage``: each key and its item in one bucket, found by
/// linear probing over a byte of control per bucket.
///
/// A `Dictionary` keeps keys and values in two arrays, so a hit in a table larger than the
/// processor's caches misses twice (the key compared, then the value read). Here the key
/// and its item share a bucket, and the probe runs over the control bytes (one byte a
/// bucket: 0 for empty, else the hash's top seven bits with the high bit set), read eight at
/// a time and dense enough to stay cached: a hit costs one miss. A removal shifts the
/// buckets after it back (there are no tombstones), so a lookup stops at the first empty
/// bucket.
///
/// Up to seven eighths of the buckets are full, not the three quarters of `Dictionary`: a
/// probe runs over control bytes, where a longer run is cheap, while the buckets are what a
/// random read misses on. At 200,000 entries that is 262,144 buckets instead of 524,288 (8 MB
/// of `Int` keys and `Data` values instead of 16 MB, under the 12 MB of a `Dictionary`'s keys
/// and values), which is what keeps random reads in a large cache within the processor's
/// caches and its TLB.
///
/// **Huge pages.** A random read of a table of many megabytes also misses the TLB: with 4 KB
/// pages, the processor walks the page tables before it can fetch the bucket. So on Linux,
/// buckets of ``hugePageBytes`` or more are aligned to 2 MB and marked for transparent huge
/// pages (`madvise(MADV_HUGEPAGE)`, honoured in the kernel's `always` and `madvise` modes):
/// a 2 MB page covers 512 small ones. Smaller tables, and other platforms, allocate as
/// before. The mark asks, it does not reserve: without a huge page free, the kernel backs
/// the buckets with small pages and may collapse them later.
///
/// A value type: its storage is copied before a mutation when shared. Not thread-safe.
@usableFromInline
struct MemoryCacheTable<Key: Hashable, Item> {
    /// A key and its item.
    @usableFromInline
    struct Bucket {
        @usableFromInline var key: Key
        @usableFromInline var item: Item

        @inlinable
        init(key: Key, item: Item) {
            self.key = key
            self.item = item
        }
    }

    /// The control bytes and buckets, allocated together.
    @usableFromInline
    final class Storage {
        /// The number of buckets: a power of two.
        @usableFromInline let capacity: Int
        // Unchecked for exclusivity: a table is only used under its owner's lock.
        @exclusivity(unchecked) @usableFromInline var count = 0
        @usableFromInline let control: UnsafeMutablePointer<UInt8>
        @usableFromInline let buckets: UnsafeMutablePointer<Bucket>

        @inlinable
        init(capacity: Int) {
            self.capacity = capacity
            control = .allocate(capacity: capacity)
            control.initialize(repeating: 0, count: capacity)
            buckets = MemoryCacheTable.allocateBuckets(capacity)
        }

        /// A copy with the same buckets in the same places.
        @inlinable
        func copy() -> Storage {
            let copy = Storage(capacity: capacity)
            copy.control.update(from: control, count: capacity)
            for index in 0..<capacity where control[index] != 0 { (copy.buckets + index).initialize(to: buckets[index]) }
            copy.count = count
            return copy
        }

        @inlinable
        deinit {
            for index in 0..<capacity where control[index] != 0 { (buckets + index).deinitialize(count: 1) }
            control.deallocate()
            buckets.deallocate()
        }
    }

    @usableFromInline var storage: Storage

    /// The smallest bucket array placed on huge pages: two of them, so that rounding up to
    /// whole 2 MB pages wastes at most a third.
    static var hugePageBytes: Int { 4 << 20 }

    /// Uninitialized memory for `capacity` buckets, on huge pages when large (see the type's
    /// documentation); freed by `deallocate()` as any allocation.
    @usableFromInline
    static func allocateBuckets(_ capacity: Int) -> UnsafeMutablePointer<Bucket> {
        #if os(Linux) && canImport(Glibc)
        let bytes = capacity * MemoryLayout<Bucket>.stride
        let page = 2 << 20
        if bytes >= hugePageBytes {
            let rounded = (bytes + page - 1) & ~(page - 1)
            let memory = UnsafeMutableRawPointer.allocate(byteCount: rounded, alignment: page)
            // Advice only: a kernel without transparent huge pages refuses it, and the
            // buckets work the same on small pages.
            _ = madvise(memory, rounded, MADV_HUGEPAGE)
            return memory.bindMemory(to: Bucket.self, capacity: capacity)
        }
        #endif
        return .allocate(capacity: capacity)
    }

    @inlinable
    init() {
        storage = Storage(capacity: 8)
    }

    @inlinable
    var count: Int { storage.count }

    /// The buckets needed to hold `count` keys at most seven eighths full: a power of two,
    /// always with an empty bucket, where every probe stops.
    @inlinable
    static func capacity(for count: Int) -> Int {
        var capacity = 8
        while capacity - capacity / 8 < count { capacity *= 2 }
        return capacity
    }

    /// The bucket a key with `hash` starts probing from, and the control byte it carries.
    @inlinable @inline(__always)
    static func start(_ hash: Int, mask: Int) -> (index: Int, tag: UInt8) {
        let bits = UInt(bitPattern: hash)
        return (Int(bitPattern: bits) & mask, UInt8(truncatingIfNeeded: bits >> (UInt.bitWidth - 7)) | 0x80)
    }

    /// The bucket holding `key`, or `nil`.
    @inlinable
    func find(_ key: Key) -> Int? { find(key, hash: key.hashValue) }

    /// The bucket holding `key`, whose `hashValue` is `hash` (computed once by a caller that
    /// also picks a stripe with it), or `nil`.
    @inlinable
    func find(_ key: Key, hash: Int) -> Int? {
        let storage = self.storage
        let mask = storage.capacity - 1
        var (index, tag) = Self.start(hash, mask: mask)
        let tags = UInt64(tag) &* 0x0101_0101_0101_0101
        while true {
            guard index &+ 8 <= storage.capacity else {
                // The last few buckets, a byte at a time, until the probe wraps around.
                let control = storage.control[index]
                if control == 0 { return nil }
                if control == tag, storage.buckets[index].key == key { return index }
                index = (index + 1) & mask
                continue
            }
            // Eight control bytes at once: the longer runs of a fuller table cost a miss
            // (a lookup of an absent key) one or two steps, not one per bucket.
            let word = UInt64(littleEndian: UnsafeRawPointer(storage.control + index).loadUnaligned(as: UInt64.self))
            // Occupied control bytes have their high bit set: the clear ones are empty.
            let empties = ~word & 0x8080_8080_8080_8080
            let end = empties.trailingZeroBitCount
            var matches = Self.zeroBytes(word ^ tags)
            while matches != 0 {
                let bit = matches.trailingZeroBitCount
                if bit > end { return nil }
                let candidate = index &+ bit >> 3
                if storage.buckets[candidate].key == key { return candidate }
                matches &= matches &- 1
            }
            if empties != 0 { return nil }
            index = (index &+ 8) & mask
        }
    }

    /// The high bit of each byte of `word` that is zero, and no other bit (no carry crosses
    /// a byte, so there are no false positives).
    @inlinable @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((word & low) &+ low) | word) & 0x8080_8080_8080_8080
    }

    /// The item in bucket `index` (from ``find(_:)``, with no insertion or removal since).
    @inlinable
    subscript(itemAt index: Int) -> Item {
        get { storage.buckets[index].item }
        _modify {
            makeUnique()
            yield &storage.buckets[index].item
        }
    }

    /// The item of `key`, or `nil`.
    @inlinable
    subscript(key: Key) -> Item? {
        guard let index = find(key) else { return nil }
        return storage.buckets[index].item
    }

    /// Puts `item` for `key`, which must not be in the table, and returns its bucket.
    @inlinable
    @discardableResult
    mutating func insert(_ item: Item, forKey key: Key) -> Int { insert(item, forKey: key, hash: key.hashValue) }

    /// Puts `item` for `key`, whose `hashValue` is `hash` and which must not be in the table,
    /// and returns its bucket.
    @inlinable
    @discardableResult
    mutating func insert(_ item: Item, forKey key: Key, hash: Int) -> Int {
        let needed = Self.capacity(for: count + 1)
        reserve(needed)
        let storage = self.storage
        let mask = storage.capacity - 1
        var (index, tag) = Self.start(hash, mask: mask)
        while storage.control[index] != 0 { index = (index + 1) & mask }
        storage.control[index] = tag
        (storage.buckets + index).initialize(to: Bucket(key: key, item: item))
        storage.count += 1
        return index
    }

    /// Removes `key` and returns its item, or `nil` when absent.
    @inlinable
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Item? {
        guard let index = find(key) else { return nil }
        return remove(at: index)
    }

    /// Removes the key in bucket `index` (from ``find(_:hash:)``, with no insertion or removal
    /// since) and returns its item.
    @inlinable
    mutating func remove(at index: Int) -> Item {
        makeUnique()
        let storage = self.storage
        let removed = (storage.buckets + index).move()
        storage.control[index] = 0
        storage.count -= 1
        // Backward shift: each following bucket of the run moves into the hole when its
        // probe started at or before the hole, so no lookup meets an empty bucket early.
        let mask = storage.capacity - 1
        var hole = index
        var next = (index + 1) & mask
        while storage.control[next] != 0 {
            let home = storage.buckets[next].key.hashValue & mask
            if (next &- home) & mask >= (next &- hole) & mask {
                (storage.buckets + hole).moveInitialize(from: storage.buckets + next, count: 1)
                storage.control[hole] = storage.control[next]
                storage.control[next] = 0
                hole = next
            }
            next = (next + 1) & mask
        }
        return removed.item
    }

    /// Every key, in bucket order.
    @inlinable
    var keys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(storage.count)
        forEach { key, _ in keys.append(key) }
        return keys
    }

    /// Calls `body` with every key and its item, in bucket order.
    @inlinable
    func forEach(_ body: (Key, Item) -> Void) {
        let storage = self.storage
        for index in 0..<storage.capacity where storage.control[index] != 0 { body(storage.buckets[index].key, storage.buckets[index].item) }
    }

    /// Empties the table and gives its memory back.
    @inlinable
    mutating func removeAll() {
        storage = Storage(capacity: 8)
    }

    /// Reallocates the buckets for the current count, after a large removal.
    @inlinable
    mutating func compact() {
        let capacity = Self.capacity(for: storage.count)
        if capacity < storage.capacity { storage = rehashed(capacity: capacity) }
    }

    /// Gives the table storage of its own, with every bucket where it was.
    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// Gives the table storage of its own, of at least `minimumCapacity` buckets (buckets
    /// move when it grows).
    @inlinable
    mutating func reserve(_ minimumCapacity: Int) {
        let capacity = storage.capacity
        let isUnique = isKnownUniquelyReferenced(&storage)
        if capacity >= minimumCapacity {
            if !isUnique { storage = storage.copy() }
        } else {
            storage = rehashed(capacity: minimumCapacity, moving: isUnique)
        }
    }

    /// A copy of the table in `capacity` buckets: its buckets moved out of this storage when
    /// `moving` (this storage is then empty), copied otherwise.
    @inlinable
    func rehashed(capacity: Int, moving: Bool = true) -> Storage {
        let old = storage
        let new = Storage(capacity: capacity)
        let mask = capacity - 1
        for index in 0..<old.capacity where old.control[index] != 0 {
            let bucket = moving ? (old.buckets + index).move() : old.buckets[index]
            if moving { old.control[index] = 0 }
            var (target, tag) = Self.start(bucket.key.hashValue, mask: mask)
            while new.control[target] != 0 { target = (target + 1) & mask }
            new.control[target] = tag
            (new.buckets + target).initialize(to: bucket)
        }
        new.count = old.count
        if moving { old.count = 0 }
        return new
    }
}
