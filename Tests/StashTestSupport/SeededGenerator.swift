import Foundation

/// A small deterministic random number generator (SplitMix64). A test that makes random
/// choices seeds one and prints the seed, so that a failure can be replayed exactly.
///
/// ```swift
/// let seed = SeededGenerator.freshSeed(for: "randomBytesNeverTrap")
/// var generator = SeededGenerator(seed: seed)
/// let size = Int.random(in: 0...100, using: &generator)
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A new random seed, printed with the test's name (or `STASH_TEST_SEED` from the
    /// environment, to replay a failure).
    public static func freshSeed(for test: String) -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["STASH_TEST_SEED"], let seed = UInt64(text) {
            print("\(test): seed \(seed) (from STASH_TEST_SEED)")
            return seed
        }
        let seed = UInt64.random(in: 1...UInt64.max)
        print("\(test): seed \(seed) (replay with STASH_TEST_SEED=\(seed))")
        return seed
    }
}
