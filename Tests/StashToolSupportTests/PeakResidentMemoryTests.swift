import Foundation
import StashToolSupport
import Testing

/// `VmHWM` as `/proc` reports it (Linux).
struct PeakResidentMemoryTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads VmHWM from /proc"))
    func thePeakOfThisProcessCoversWhatItHolds() {
        let held = [UInt8](repeating: 1, count: 8 << 20)
        let peak = PeakResidentMemory.bytes(of: "self")
        #expect((peak ?? 0) >= held.count, "a peak below the 8 MB this test holds: \(String(describing: peak))")
        #expect(PeakResidentMemory.bytes(of: "no-such-process") == nil)
    }
}
