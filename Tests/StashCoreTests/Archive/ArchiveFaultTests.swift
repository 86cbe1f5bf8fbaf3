import Foundation
import StashCore
import StashTestSupport
import Testing

/// `ArchiveFile` under an I/O fault at each of its calls (see `FaultSweep`): a failed save
/// throws and leaves the previous value or the new one, whole; the archive still loads.
struct ArchiveFaultTests {
    @Test func everyFailedCallLeavesOneWholeValue() {
        typealias Step = FaultSweep<ArchiveFile<[String]>, [String]?>.Step
        let sweep = FaultSweep<ArchiveFile<[String]>, [String]?>(
            name: "ArchiveFile", initial: nil,
            open: { ArchiveFile<[String]>(url: $0.appendingPathComponent("drafts.plist")) },
            close: { _ in },
            read: { try $0.loadIfPresent() },
            steps: [
                Step("save 1", apply: { try $0.save(["first"]) }, change: { $0 = ["first"] }),
                Step("save 2", apply: { try $0.save(["first", "second"]) }, change: { $0 = ["first", "second"] }),
                Step("delete", apply: { try $0.delete() }, change: { $0 = nil }),
                Step("save 3", apply: { try $0.save(["third"]) }, change: { $0 = ["third"] }),
            ],
            then: Step("save after", apply: { try $0.save(["after"]) }, change: { $0 = ["after"] })
        )
        let report = sweep.run()
        #expect(report.calls == 19)
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }
}
