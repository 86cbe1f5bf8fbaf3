import Foundation
import StashTestSupport
import Testing

/// The README is the front door and docs/ARCHITECTURE.md the design as it is now: both stay
/// short (20 KB and 25 KB), so that guides go to DocC and history to git and CHANGELOG.md.
struct DocumentSizeTests {
    @Test(arguments: [("README.md", 20 * 1024), ("docs/ARCHITECTURE.md", 25 * 1024)])
    func documentStaysWithinItsSize(path: String, limit: Int) throws {
        let url = DocumentedExample.packageRoot.appendingPathComponent(path)
        let size = try Data(contentsOf: url).count
        #expect(size <= limit, "\(path) is \(size) bytes; its limit is \(limit)")
    }
}
