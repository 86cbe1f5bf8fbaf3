/// The hash of a key's UTF-8 bytes that ``KeyIndex`` files keys by, computed in the same
/// pass as the check that the key is plain ASCII without NUL (which is already its stored
/// form, see `StoredKey`): a read touches its key's bytes once.
///
/// Eight bytes at a time: each word is mixed in with a multiply and a shift, then the whole
/// is finalized (the multiply-xorshift steps of SplitMix64). Seeded once per process at
/// random, so that a crafted file cannot choose keys that all collide. Not a cryptographic
/// hash, and not stable across processes: never store it.
enum KeyHash {
    /// The seed of this process.
    static let seed = UInt64.random(in: 0 ... .max)

    /// The hash of `bytes` and whether they are plain ASCII (no byte ≥ 0x80) without NUL.
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> (hash: UInt64, isPlainASCII: Bool) {
        let count = bytes.count
        var hash = seed ^ (UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15)
        var highBits: UInt64 = 0
        var zeroBytes: UInt64 = 0
        var offset = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while count - offset >= 8 {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                highBits |= word
                // Non-zero exactly when one of the word's bytes is zero.
                zeroBytes |= (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
                hash = mix(hash ^ word)
                offset += 8
            }
            if offset < count {
                var word: UInt64 = 0
                var shift: UInt64 = 0
                while offset < count {
                    let byte = base[offset]
                    if byte == 0 { zeroBytes = 1 }
                    word |= UInt64(byte) << shift
                    shift += 8
                    offset += 1
                }
                highBits |= word
                hash = mix(hash ^ word)
            }
        }
        hash ^= hash >> 31
        hash &*= 0x94D0_49BB_1331_11EB
        hash ^= hash >> 29
        return (hash, highBits & 0x8080_8080_8080_8080 == 0 && zeroBytes == 0)
    }

    /// The hash of `key`'s UTF-8 bytes (see ``hash(_:)``).
    @inline(__always)
    static func hash(_ key: String) -> (hash: UInt64, isPlainASCII: Bool) {
        if let result = key.utf8.withContiguousStorageIfAvailable({ hash($0) }) { return result }
        var copy = key
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable { hash($0) } ?? (0, false)
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var value = value &* 0xBF58_476D_1CE4_E5B9
        value ^= value >> 32
        return value
    }
}
