import Foundation
import HTTPTypes
import StashCore
import StashHTTP
import StashPostgres
import StashTestSupport
import Testing

/// Two `stash http-proxy --shared-cache` processes in front of one real origin, sharing one
/// PostgreSQL table: what one stores the other serves, what one invalidates the other
/// forgets, and a stopped PostgreSQL makes the proxy forward, never fail.
@Suite(.enabled(if: TestPostgres.enabled, TestPostgres.skipReason), .timeLimit(.minutes(3)))
struct SharedCacheProxyProcessTests {
    /// A running `stash http-proxy` child.
    struct Proxy {
        let child: ChildProcess
        let port: Int

        /// Starts a proxy in front of `origin` on the `stash_cache` table of `schema`.
        static func start(origin: CountingOrigin, url: String, schema: String?, timeout: String = "5") throws -> Proxy {
            var shared = url + (url.contains("?") ? "&" : "?") + "sslmode=disable"
            if let schema { shared += "&options=-c%20search_path%3D" + schema }
            let child = try ChildProcess(BuiltProducts.executable("stash"), [
                "http-proxy", "--listen", "127.0.0.1:0", "--upstream", origin.url,
                "--shared-cache", shared, "--shared-cache-timeout", timeout,
            ])
            let banner = child.readLine() ?? ""
            guard let range = banner.range(of: "listening on http://127.0.0.1:"),
                  let port = Int(banner[range.upperBound...].prefix { $0.isNumber }) else {
                child.kill()
                _ = child.wait()
                throw StashError(.io, "the proxy did not start: \(banner) \(child.standardError())")
            }
            #expect(child.readLine()?.hasPrefix("shared cache: PostgreSQL") == true)
            return Proxy(child: child, port: port)
        }

        func stop() {
            child.kill()
            _ = child.wait()
        }

        /// Sends `method path` for the site `shop.example` and answers the status,
        /// `Cache-Status`, `Age` and body.
        func send(_ path: String, method: HTTPRequest.Method = .get) async throws -> (status: Int, cacheStatus: String, age: Int?, body: String) {
            let answer = try await RawClient.exchange(port: port, method: method.rawValue, path: path, host: "shop.example")
            return (answer.status, answer.fields["cache-status"] ?? "", answer.fields["age"].flatMap { Int($0) }, answer.body)
        }
    }

    @Test func twoProxiesShareHitsAgeAndInvalidations() async throws {
        let origin = try await CountingOrigin.start()
        defer { origin.stop() }
        try await TestPostgres.withSchema { url, schema, client in
            try await SharedCache(client: client, configuration: TestPostgres.configuration).migrate()
            let a = try Proxy.start(origin: origin, url: url, schema: schema)
            defer { a.stop() }
            let b = try Proxy.start(origin: origin, url: url, schema: schema)
            defer { b.stop() }

            let started = ContinuousClock.now
            let miss = try await a.send("/aged/page")
            #expect(miss.status == 200 && miss.body == "/aged/page #1")
            #expect(miss.cacheStatus.contains("fwd=miss"))
            try await Task.sleep(for: .seconds(2))
            let hit = try await b.send("/aged/page")
            let elapsed = Int((ContinuousClock.now - started).components.seconds) + 1
            #expect(hit.status == 200 && hit.body == "/aged/page #1", "B did not serve what A stored")
            #expect(hit.cacheStatus == "stash; hit")
            // 30 s held upstream (the origin's `Age`) plus at least the 2 s it rested in the table.
            let age = hit.age ?? -1
            #expect(age >= 32 && age <= 30 + elapsed + 1, "Age \(age) after \(elapsed) s")

            for method in [HTTPRequest.Method.post, .put, .delete] {
                let path = "/doc-\(method.rawValue.lowercased())"
                #expect(try await a.send(path).cacheStatus.contains("fwd=miss"))
                #expect(try await b.send(path).cacheStatus == "stash; hit")
                let change = try await b.send(path, method: method)
                #expect(change.status == 204)
                let after = try await a.send(path)
                #expect(after.cacheStatus.contains("fwd=miss"), "\(method) through B did not invalidate for A")
                #expect(after.body == "\(path) #2")
                #expect(try await b.send(path).cacheStatus == "stash; hit")
                #expect(origin.count("GET \(path)") == 2)
                #expect(origin.count("\(method.rawValue) \(path)") == 1)
            }
            #expect(origin.count("GET /aged/page") == 1)
            #expect(origin.total == 1 + 3 * 3)
        }
    }

    @Test func aStoppedPostgreSQLMakesTheProxyForwardWithinItsTimeout() async throws {
        let folder = TemporaryFolder("proxy-postgres-fault")
        let server = folder.url.appendingPathComponent("server").path
        let url = try PostgresScript.run("start", server)
        defer { _ = try? PostgresScript.run("stop", server) }
        let origin = try await CountingOrigin.start()
        defer { origin.stop() }
        let proxy = try Proxy.start(origin: origin, url: url, schema: nil, timeout: "0.5")
        defer { proxy.stop() }
        #expect(try await proxy.send("/a").body == "/a #1")
        #expect(try await proxy.send("/a").cacheStatus == "stash; hit")

        _ = try PostgresScript.run("pause", server)

        for (path, expected) in [("/a", "/a #2"), ("/b", "/b #1"), ("/b", "/b #2")] {
            let attempt = ContinuousClock.now
            let answer = try await proxy.send(path)
            // A lookup and a store, each bounded by the 0.5 s timeout, plus slack for a busy machine.
            #expect(ContinuousClock.now - attempt < .seconds(4), "the proxy hung on the stopped PostgreSQL")
            #expect(answer.status == 200, "the cache's failure became a \(answer.status)")
            #expect(answer.cacheStatus.contains("fwd=miss"))
            #expect(answer.body == expected)
        }

        _ = try PostgresScript.run("start", server)
        var recovered = false
        for attempt in 0..<120 where !recovered {
            _ = try await proxy.send("/c\(attempt)")
            recovered = try await proxy.send("/c\(attempt)").cacheStatus == "stash; hit"
            if !recovered { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(recovered, "the proxy did not use the shared cache again after PostgreSQL restarted")
        #expect(origin.count("GET /a") == 2)
    }
}
