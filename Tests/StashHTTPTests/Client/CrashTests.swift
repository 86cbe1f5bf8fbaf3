import Foundation
import HTTPTypes
import StashHTTP
import StashTestSupport
import Testing

/// A cache folder whose writer was killed mid-write reopens cleanly and keeps serving.
struct CrashTests {
    /// The child executable: `stash-testhost` once a product of that name exists, the
    /// target's own name (`StashTestHost`) until then.
    static let testHost: URL = {
        let named = BuiltProducts.executable("stash-testhost")
        return FileManager.default.isExecutableFile(atPath: named.path) ? named : BuiltProducts.executable("StashTestHost")
    }()

    @Test func killedWriterLeavesAReadableCache() async throws {
        let folder = TemporaryFolder("http-crash")
        for round in 0..<3 {
            let child = try ChildProcess(Self.testHost, ["http.store-loop", folder.url.path])
            #expect(child.readLine() == "ready")
            var acknowledged = -1
            let target = 20 + round * 15
            while acknowledged < target, let line = child.readLine() {
                if line.hasPrefix("stored "), let index = Int(line.dropFirst(7)) { acknowledged = index }
            }
            child.kill()
            #expect(child.wait() == 128 + SIGKILL)

            let cache = try HTTPCache(directory: folder.url)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".") }
            #expect(leftovers.isEmpty, "temporary files are swept on open")
            for index in 0...acknowledged {
                let request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/item/\(index)")
                let hit = try #require(cache.cachedResponse(for: request), "round \(round) item \(index)")
                #expect(hit.body.count == 16_384 + index)
                #expect(hit.body.first == UInt8(truncatingIfNeeded: index))
                #expect(hit.response.headerFields[.eTag] == "\"\(index)\"")
            }
        }
    }
}
