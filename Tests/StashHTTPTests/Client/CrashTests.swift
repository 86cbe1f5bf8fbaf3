import Foundation
import HTTPTypes
import StashHTTP
import StashTestSupport
import Testing

/// A cache folder whose writer was killed mid-write reopens cleanly and keeps serving.
@Suite(.timeLimit(.minutes(3)))
struct CrashTests {
    static var testHost: URL { BuiltProducts.testHost }

    /// Each round stores items numbered from `round * 1000` (distinct URLs and bodies), so a
    /// response an earlier round flushed cannot stand in for one this round lost; the items
    /// earlier rounds flushed must still be there.
    @Test func killedWriterLeavesAReadableCache() async throws {
        let folder = TemporaryFolder("http-crash")
        var flushedBefore: [Int] = []
        for round in 0..<3 {
            let first = round * 1000
            let child = try ChildProcess(Self.testHost, ["http.store-loop", folder.url.path, "\(first)"])
            #expect(child.readLine() == "ready")
            var stored = -1
            var flushed = -1
            let target = first + 25 + round * 15
            while stored < target, let line = child.readLine() {
                if line.hasPrefix("stored "), let index = Int(line.dropFirst(7)) { stored = index }
                if line.hasPrefix("flushed "), let index = Int(line.dropFirst(8)) { flushed = index }
            }
            child.kill()
            #expect(child.wait() == 128 + SIGKILL)
            #expect(flushed >= first + 9)

            let cache = try HTTPCache(directory: folder.url)
            for index in flushedBefore {
                let request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/item/\(index)")
                #expect(cache.cachedResponse(for: request)?.body.count == 16_384 + index, "round \(round): item \(index) of an earlier round survives")
            }
            if flushed >= first { flushedBefore += Array(first...flushed) }
            for index in first...max(first, stored) {
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
