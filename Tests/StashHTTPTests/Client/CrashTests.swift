import Foundation
import HTTPTypes
import StashHTTP
import StashTestSupport
import Testing

/// A cache folder whose writer was killed mid-write reopens cleanly and keeps serving.
struct CrashTests {
    static var testHost: URL { BuiltProducts.testHost }

    @Test func killedWriterLeavesAReadableCache() async throws {
        let folder = TemporaryFolder("http-crash")
        for round in 0..<3 {
            let child = try ChildProcess(Self.testHost, ["http.store-loop", folder.url.path])
            #expect(child.readLine() == "ready")
            var stored = -1
            var flushed = -1
            let target = 25 + round * 15
            while stored < target, let line = child.readLine() {
                if line.hasPrefix("stored "), let index = Int(line.dropFirst(7)) { stored = index }
                if line.hasPrefix("flushed "), let index = Int(line.dropFirst(8)) { flushed = index }
            }
            child.kill()
            #expect(child.wait() == 128 + SIGKILL)
            #expect(flushed >= 9)

            let cache = try HTTPCache(directory: folder.url)
            for index in 0...stored {
                let request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/item/\(index)")
                let hit = cache.cachedResponse(for: request)
                if index <= flushed { #expect(hit != nil, "round \(round): flushed item \(index) survives") }
                guard let hit else { continue }
                #expect(hit.body.count == 16_384 + index, "round \(round): item \(index) is whole")
                #expect(hit.body.allSatisfy { $0 == UInt8(truncatingIfNeeded: index) })
                #expect(hit.response.headerFields[.eTag] == "\"\(index)\"")
            }
            try cache.close()
        }
    }
}
