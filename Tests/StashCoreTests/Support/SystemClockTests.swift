import Foundation
import StashCore
import Testing

/// `SystemClock.coarseReferenceSeconds`, the time `MemoryCache` reads on each write: the same
/// wall clock as `Date()`, at most a few milliseconds behind and never ahead.
struct SystemClockTests {
    @Test func theCoarseReadingIsTheWallClockAtAFewMillisecondsResolution() {
        for _ in 0..<1_000 {
            let before = Date().timeIntervalSinceReferenceDate
            let coarse = SystemClock.coarseReferenceSeconds
            let after = Date().timeIntervalSinceReferenceDate
            // A coarse clock lags by up to one tick (1–10 ms by kernel configuration).
            #expect(coarse <= after + 1e-6, "coarse \(coarse) is ahead of \(after)")
            #expect(coarse > before - 0.02, "coarse \(coarse) lags \(before) by more than 20 ms")
        }
    }
}
