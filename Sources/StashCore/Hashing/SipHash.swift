/// SipHash (Aumasson and Bernstein), a keyed 64-bit hash: without the 128-bit key, inputs
/// that share a hash cannot be found faster than by trying. A table that stores its key
/// beside it (a file shared across launches) uses it where Swift's `Hasher`, seeded anew in
/// every process, cannot serve, and where keys come from outside (URLs a server was asked
/// for) and could otherwise be chosen to pile up in one bucket.
///
/// ```swift
/// let hash = SipHash(key: (0x0706050403020100, 0x0F0E0D0C0B0A0908)).hash(bytes)
/// ```
///
/// The default rounds are SipHash-1-3's, as in Swift's `Hasher` and Python's `str` hash.
/// A value with no state between calls: thread-safe, and it keeps nothing on disk (a table
/// that must hash alike after a restart stores ``key`` itself).
package struct SipHash: Sendable {
    package var key: (UInt64, UInt64)
    /// Compression rounds per 8-byte word, and finalization rounds.
    package var rounds: (compression: Int, finalization: Int)

    package init(key: (UInt64, UInt64), rounds: (compression: Int, finalization: Int) = (1, 3)) {
        self.key = key
        self.rounds = rounds
    }

    /// A new random key.
    package static func randomKey() -> (UInt64, UInt64) {
        (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
    }

    /// The hash of `bytes`.
    package func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var v0 = key.0 ^ 0x736F_6D65_7073_6575
        var v1 = key.1 ^ 0x646F_7261_6E64_6F6D
        var v2 = key.0 ^ 0x6C79_6765_6E65_7261
        var v3 = key.1 ^ 0x7465_6462_7974_6573
        @inline(__always) func round() {
            v0 &+= v1; v1 = v1.rotated(13); v1 ^= v0; v0 = v0.rotated(32)
            v2 &+= v3; v3 = v3.rotated(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotated(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotated(17); v1 ^= v2; v2 = v2.rotated(32)
        }
        @inline(__always) func absorb(_ word: UInt64) {
            v3 ^= word
            for _ in 0..<rounds.compression { round() }
            v0 ^= word
        }
        let count = bytes.count
        let whole = count & ~7
        var offset = 0
        while offset < whole {
            absorb(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        var last = UInt64(truncatingIfNeeded: count) << 56
        for index in 0..<(count - whole) {
            last |= UInt64(bytes[whole + index]) << (8 * UInt64(index))
        }
        absorb(last)
        v2 ^= 0xFF
        for _ in 0..<rounds.finalization { round() }
        return v0 ^ v1 ^ v2 ^ v3
    }

    /// The hash of `bytes`.
    package func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        hash(UnsafeRawBufferPointer(bytes))
    }
}

private extension UInt64 {
    @inline(__always) func rotated(_ count: UInt64) -> UInt64 { (self << count) | (self >> (64 - count)) }
}
