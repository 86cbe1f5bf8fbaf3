/// The row ID a key's row is written under, so that a lookup is one descent of the entry
/// table's B-tree by integer instead of a descent of the key index and then of the table.
///
/// The ID is a keyed hash of the key's UTF-8 bytes (SipHash-2-4), its key drawn at random
/// when a writer first opens the manifest and kept in the `counter` table (`row_seed`):
/// someone who chooses keys (a URL a proxy caches) cannot make them collide without
/// reading the manifest. The key stays the table's primary key, so an ID is only a place
/// to look first:
///
/// - a write whose ID is taken by another key's row goes where SQLite puts it (a free ID),
///   and so do rows written before IDs were hashed (they number 1, 2, …) or renamed by key
///   normalization: such a row is *displaced*;
/// - a lookup reads the row with the key's ID and compares its key byte for byte; when
///   there is no row there or it holds another key, it looks the key up in the index as
///   before. A displaced row is found, one descent later; a miss costs two descents.
///
/// The format does not change: a manifest written with or without hashed IDs is read by
/// either.
struct ManifestRowID: Sendable {
    private let k0: UInt64
    private let k1: UInt64

    /// The IDs of a manifest whose `row_seed` is `seed`.
    init(seed: Int64) {
        k0 = UInt64(bitPattern: seed)
        // The second half of the key, derived from the first (SplitMix64's finalizer).
        var z = k0 &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        k1 = z ^ (z >> 31)
    }

    /// The hash with an explicit 128-bit key, for checking against SipHash's published
    /// vectors.
    init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// The ID of `key` (any 64-bit value: SQLite row IDs may be negative).
    func callAsFunction(_ key: String) -> Int64 {
        var key = key
        return key.withUTF8 { Int64(bitPattern: hash(UnsafeRawBufferPointer($0))) }
    }

    /// SipHash-2-4 of `bytes`.
    func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var state = (k0 ^ 0x736F_6D65_7073_6575, k1 ^ 0x646F_7261_6E64_6F6D, k0 ^ 0x6C79_6765_6E65_7261, k1 ^ 0x7465_6462_7974_6573)
        let count = bytes.count
        let whole = count & ~7
        var offset = 0
        while offset < whole {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            Self.absorb(word, into: &state)
            offset += 8
        }
        var last = UInt64(truncatingIfNeeded: count) << 56
        for index in 0..<(count - whole) {
            last |= UInt64(bytes[whole + index]) << (8 * UInt64(index))
        }
        Self.absorb(last, into: &state)
        state.2 ^= 0xFF
        for _ in 0..<4 { Self.round(&state) }
        return state.0 ^ state.1 ^ state.2 ^ state.3
    }

    private static func absorb(_ word: UInt64, into state: inout (UInt64, UInt64, UInt64, UInt64)) {
        state.3 ^= word
        round(&state)
        round(&state)
        state.0 ^= word
    }

    @inline(__always)
    private static func round(_ v: inout (UInt64, UInt64, UInt64, UInt64)) {
        v.0 &+= v.1
        v.1 = v.1.rotatedLeft(13) ^ v.0
        v.0 = v.0.rotatedLeft(32)
        v.2 &+= v.3
        v.3 = v.3.rotatedLeft(16) ^ v.2
        v.0 &+= v.3
        v.3 = v.3.rotatedLeft(21) ^ v.0
        v.2 &+= v.1
        v.1 = v.1.rotatedLeft(17) ^ v.2
        v.2 = v.2.rotatedLeft(32)
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
