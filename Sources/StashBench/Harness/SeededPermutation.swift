/// `0..<count` shuffled by a Fisher-Yates walk over a 64-bit LCG started at `seed`: the same
/// order for the same seed on every run, so a suite that logs its seed can be replayed.
///
/// ```swift
/// let order = seededPermutation(1000, seed: 42)
/// ```
func seededPermutation(_ count: Int, seed: UInt64) -> [Int] {
    var order = Array(0..<count)
    var state = seed
    for index in stride(from: count - 1, to: 0, by: -1) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        order.swapAt(index, Int((state >> 33) % UInt64(index + 1)))
    }
    return order
}
