import Foundation
import StashCore
import StashPostgres
import StashTestSupport
import Testing

/// Two processes (this one and `stash-testhost` children) on one table.
@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason), .timeLimit(.minutes(3)))
struct SharedCacheProcessTests {
    @Test func processesShareValuesAndLoseNoIncrement() async throws {
        let perProcess = 200
        try await TestPostgres.withSchema { url, schema, client in
            let cache = SharedCache(client: client, configuration: TestPostgres.configuration)
            try await cache.migrate()
            try await cache.set(Data("hello from the parent".utf8), forKey: "from-parent")
            let children = try (0..<2).map { _ in
                try ChildProcess.testHost("postgres.increment", url, schema, String(perProcess))
            }
            for child in children { #expect(child.readLine() == "ready") }
            for _ in 0..<perProcess { try await cache.increment("counter") }
            for child in children {
                let done = child.readLine() ?? ""
                #expect(child.wait() == 0, "child failed: \(child.standardError())")
                let parts = done.split(separator: " ", maxSplits: 2).map(String.init)
                #expect(parts.count == 3 && parts[0] == "done")
                #expect(parts.last == "hello from the parent")
                // What the child stored is a hit here.
                if parts.count == 3 {
                    let found = try await cache.values(forKeys: (0..<perProcess).map { "from-\(parts[1])-\($0)" })
                    #expect(found.count == perProcess)
                    #expect(found["from-\(parts[1])-7"] == Data("7".utf8))
                }
            }
            #expect(try await cache.increment("counter", by: 0) == 3 * perProcess)
        }
    }
}
