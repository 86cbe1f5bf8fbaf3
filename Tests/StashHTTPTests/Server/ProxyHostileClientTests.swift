import Foundation
import HTTPTypes
import NIOCore
import StashCache
import StashCore
@testable import StashHTTP
import StashHTTPAsyncClient
import StashTestSupport
import Testing
@testable import StashHTTPServer

/// A client that crafts every byte, against a real proxy on 127.0.0.1 with a real origin and
/// a second, "intranet" server that must never be reached. Each case asserts the status and
/// what the origin and the intranet server saw.
@Suite(.serialized)
struct ProxyHostileClientTests {
    /// A proxy in front of `running.origin`, and a server beside it that nothing may reach.
    static func withProxyAndIntranet(
        configuration: HTTPCachingProxy.Configuration = .init(), _ body: (ProxyTests.Running, TestOrigin) async throws -> Void
    ) async throws {
        let intranet = try await TestOrigin.start(clock: SystemClock())
        defer { intranet.stop() }
        intranet.set("/x", .ok([("Cache-Control", "max-age=600")]))
        try await ProxyTests.Running.with(configuration: configuration) { running in
            running.origin.set("/x", .ok([("Cache-Control", "max-age=600")]))
            try await body(running, intranet)
            #expect(intranet.allRequests.isEmpty, "the intranet server was reached: \(intranet.allRequests.map { $0.path ?? "" })")
        }
    }

    /// Sends `head` as it is on a connection of its own and reads one response; `closes` is
    /// whether the proxy then closed the connection.
    /// Sends each head on a connection of its own: each must get `400` and a closed connection.
    static func expectRefused(_ heads: [String], port: Int) async throws {
        for head in heads {
            let answer = try await exchange(head, port: port)
            #expect(answer.status == 400, "\(head.debugDescription) → \(answer.response.debugDescription)")
            #expect(answer.closes, "\(head.debugDescription): the connection should close after a refusal")
        }
    }

    static func exchange(_ head: String, port: Int) async throws -> (status: Int, response: String, closes: Bool) {
        let client = try RawClient(port: port, patience: 10)
        #expect(client.send(head))
        guard let response = await client.response() else { return (0, "", true) }
        let status = Int(response.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, response, await client.isClosedByPeer())
    }

    /// Target forms: only origin form reaches the origin as it is; absolute form only for the
    /// upstream's own authority; `*` only for `OPTIONS`, answered by the proxy; authority
    /// form, user information and strings an HTTP client would read as another host never
    /// leave the proxy.
    @Test func targetFormsReachOnlyTheUpstream() async throws {
        try await Self.withProxyAndIntranet { running, intranet in
            let origin = "127.0.0.1:\(running.origin.port)", inside = "127.0.0.1:\(intranet.port)"
            let refused = [
                "GET *@\(inside)/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET @\(inside)/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET \(inside)/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET http://\(inside)/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET http://\(origin)@\(inside)/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET http://user@\(origin)/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET ftp://\(origin)/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "CONNECT \(inside) HTTP/1.1\r\nHost: \(inside)\r\n\r\n",
                "GET * HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET /x%zz HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET /x%2 HTTP/1.1\r\nHost: a\r\n\r\n",
            ]
            try await Self.expectRefused(refused, port: running.port)
            #expect(running.origin.allRequests.isEmpty, "\(running.origin.allRequests.map { $0.path ?? "" })")

            // Absolute form naming the upstream: reduced to its path.
            let absolute = try await Self.exchange("GET http://\(origin)/x HTTP/1.1\r\nHost: anything\r\nConnection: close\r\n\r\n", port: running.port)
            #expect(absolute.status == 200)
            #expect(running.origin.requests("/x").count == 1)

            // Origin-form paths that look like hosts stay paths at the origin.
            for target in ["//\(inside)/x", "/@\(inside)/x", "/\\\\\(inside)/x"] {
                let answer = try await Self.exchange("GET \(target) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", port: running.port)
                #expect(answer.status == 404, "\(target): the origin answers 404 for paths it has no reply for")
            }

            // OPTIONS * is the proxy's own.
            let options = try await Self.exchange("OPTIONS * HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", port: running.port)
            #expect(options.status == 200)
            #expect(running.origin.allRequests.count == 4)
        }
    }

    /// Dot segments, plain and percent-encoded, are refused on the full flow and on the raw
    /// hit path alike (a stored `/x` is not served for `/a/../x`).
    @Test(arguments: ["/a/../x", "/a/%2e%2e/x", "/a/%2E%2E%2Fx", "/./x", "/a/..%2fx", "/a/..;/x", "/a/%2e%2e;/x", "/a/%252e%252e/x"])
    func dotSegmentsAreRefused(_ target: String) async throws {
        try await Self.withProxyAndIntranet { running, _ in
            _ = try await Self.exchange("GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", port: running.port)
            let answer = try await Self.exchange("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n", port: running.port)
            #expect(answer.status == 400)
            #expect(running.origin.allRequests.count == 1)
        }
    }

    /// In front of `http://origin/app`, no target reaches anything outside `/app` at an origin
    /// that drops path parameters or decodes twice (the nginx-to-Tomcat bypass), and `CONNECT`
    /// in every form is refused before it is forwarded.
    @Test func nothingClimbsOutOfTheUpstreamPrefix() async throws {
        try await ProxyTests.Running.with(upstreamPath: "/app") { running in
            running.origin.set("/app/x", .ok([("Cache-Control", "max-age=600")]))
            let refused = [
                "GET /..;/manager/html HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET /%2e%2e;/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET /%252e%252e/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET /x/..;jsessionid=1/..;/manager HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET /%2E%2E%3B/x HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET /x%00.html HTTP/1.1\r\nHost: a\r\n\r\n",
                "CONNECT /x HTTP/1.1\r\nHost: a\r\n\r\n",
                "CONNECT 127.0.0.1:\(running.origin.port) HTTP/1.1\r\nHost: a\r\n\r\n",
                "CONNECT http://127.0.0.1:\(running.origin.port)/x HTTP/1.1\r\nHost: a\r\n\r\n",
            ]
            try await Self.expectRefused(refused, port: running.port)
            // The same refusals after a request that took the connection to the decoder.
            let client = try RawClient(port: running.port)
            client.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi")
            _ = await client.response()
            client.send("CONNECT /x HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(await client.response()?.hasPrefix("HTTP/1.1 400") == true)
            #expect(running.origin.allRequests.map { $0.path ?? "" } == ["/app/x"], "only the POST reached the origin")
            let fine = try await ProxyHostileClientTests.exchange("GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", port: running.port)
            #expect(fine.status == 200)
        }
    }

    /// `Host`: exactly one, a host with an optional port; HTTP/1.1 needs one (RFC 9112 §3.2).
    /// Each refusal holds on a connection that starts on the raw hit path and on one that has
    /// gone to the decoder (a `POST` first), for a URL that is stored (a hit if admitted).
    @Test(arguments: [
        "Host: victim.example/a\r\n", "Host: a?b\r\n", "Host: a#b\r\n", "Host: a@b\r\n", "Host: a b\r\n", "Host: a:99999\r\n",
        "Host: a:1x\r\n", "Host: [zz]\r\n", "Host: a\r\nHost: b\r\n", "Host: a\r\nhost: a\r\n", "",
    ])
    func malformedHostsAreRefused(_ hostLines: String) async throws {
        try await Self.withProxyAndIntranet { running, _ in
            _ = try await Self.exchange("GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", port: running.port)
            let raw = try await Self.exchange("GET /x HTTP/1.1\r\n\(hostLines)\r\n", port: running.port)
            #expect(raw.status == 400, "\(hostLines.debugDescription) → \(raw.response.debugDescription)")
            let afterPost = try RawClient(port: running.port)
            afterPost.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi")
            _ = await afterPost.response()
            afterPost.send("GET /x HTTP/1.1\r\n\(hostLines)\r\n")
            let decoded = await afterPost.response() ?? ""
            #expect(decoded.hasPrefix("HTTP/1.1 400"), "\(hostLines.debugDescription) after a POST → \(decoded.debugDescription)")
        }
    }

    /// Valid `Host` forms pass, and an HTTP/1.0 request may go without one.
    @Test(arguments: ["Host: a\r\n", "Host: A.Example:8080\r\n", "Host: [::1]:80\r\n", "Host: 10.0.0.1\r\n", "Host: \r\n"])
    func wellFormedHostsPass(_ hostLine: String) async throws {
        try await Self.withProxyAndIntranet { running, _ in
            let answer = try await Self.exchange("GET /x HTTP/1.1\r\n\(hostLine)Connection: close\r\n\r\n", port: running.port)
            #expect(answer.status == 200, "\(hostLine.debugDescription) → \(answer.response.debugDescription)")
            let old = try await Self.exchange("GET /x HTTP/1.0\r\nConnection: close\r\n\r\n", port: running.port)
            #expect(old.status == 200)
        }
    }

    /// A client's `Host` cannot choose the entry another client gets: `GET /b` with
    /// `Host: victim.example/a` is refused, and the ordinary `GET /a/b` that follows reaches
    /// the origin for `/a/b`. Varying `Host` does not make copies of one path either.
    @Test func hostCannotPoisonOrMultiplyEntries() async throws {
        try await Self.withProxyAndIntranet { running, _ in
            running.origin.set("/b", .ok([("Cache-Control", "max-age=600")], body: "b"))
            running.origin.set("/a/b", .ok([("Cache-Control", "max-age=600")], body: "a/b"))
            let poison = try await Self.exchange("GET /b HTTP/1.1\r\nHost: victim.example/a\r\n\r\n", port: running.port)
            #expect(poison.status == 400)
            let ordinary = try await Self.exchange("GET /a/b HTTP/1.1\r\nHost: victim.example\r\nConnection: close\r\n\r\n", port: running.port)
            #expect(ordinary.response.hasSuffix("\r\n\r\na/b"))
            #expect(running.origin.requests("/a/b").count == 1)
            for host in ["one.example", "two.example", "three.example:81", "127.0.0.1"] {
                let answer = try await Self.exchange("GET /b HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", port: running.port)
                #expect(answer.status == 200 && answer.response.hasSuffix("\r\n\r\nb"))
            }
            #expect(running.origin.requests("/b").count == 1, "one entry for /b, whatever the Host")
            // The origin sees its own authority as Host, never a client's.
            #expect(running.origin.allRequests.allSatisfy { $0.authority == "127.0.0.1:\(running.origin.port)" })
        }
    }

    /// With virtual hosts, each served name has its own entry and is the `Host` the origin
    /// gets; another name is refused.
    @Test func virtualHostsKeyOnTheServedName() async throws {
        var configuration = HTTPCachingProxy.Configuration()
        configuration.virtualHosts = ["One.Example", "two.example"]
        try await Self.withProxyAndIntranet(configuration: configuration) { running, _ in
            for host in ["one.example", "ONE.example:8080", "two.example"] {
                let answer = try await Self.exchange("GET /x HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", port: running.port)
                #expect(answer.status == 200)
            }
            #expect(running.origin.requests("/x").map(\.authority) == ["one.example", "two.example"])
            let other = try await Self.exchange("GET /x HTTP/1.1\r\nHost: three.example\r\n\r\n", port: running.port)
            #expect(other.status == 400)
            let absolute = try await Self.exchange("GET http://two.example/x HTTP/1.1\r\nHost: one.example\r\nConnection: close\r\n\r\n", port: running.port)
            #expect(absolute.status == 200 && absolute.response.contains("stash; hit"), "the absolute form's authority stands for Host")
            #expect(running.origin.requests("/x").count == 2)
        }
    }

    /// Framing that could smuggle a second request is refused before anything is forwarded:
    /// `Content-Length` with `Transfer-Encoding`, two different `Content-Length`s, obs-fold.
    @Test(arguments: [
        "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /y HTTP/1.1\r\nHost: a\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 30\r\n\r\nhello",
        "GET /x HTTP/1.1\r\nHost: a\r\nX-Folded: one\r\n two\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: a\r\n Host: b\r\n\r\n",
    ])
    func smugglingFramesAreRefused(_ head: String) async throws {
        try await Self.withProxyAndIntranet { running, _ in
            let answer = try await Self.exchange(head, port: running.port)
            #expect(answer.status == 400, "\(head.debugDescription) → \(answer.response.debugDescription)")
            #expect(running.origin.allRequests.isEmpty)
        }
    }

    /// A body announced past the limit is refused with `413` before a byte of it is read (the
    /// client sends only the head), and the connection closes.
    @Test func announcedBodyPastTheLimitIs413() async throws {
        var configuration = HTTPCachingProxy.Configuration()
        configuration.maximumRequestBodySize = 1000
        try await Self.withProxyAndIntranet(configuration: configuration) { running, _ in
            let answer = try await Self.exchange("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000000\r\n\r\n", port: running.port)
            #expect(answer.status == 413)
            #expect(answer.closes)
            #expect(running.origin.allRequests.isEmpty)
            // At the limit it passes, whole.
            let body = String(repeating: "b", count: 1000)
            let fits = try await Self.exchange("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n\(body)", port: running.port)
            #expect(fits.status == 200)
            #expect(running.origin.bodySizes("/x") == [1000])
        }
    }

    /// A chunked body is counted as it arrives: past the limit it is cut and answered `413`.
    @Test func chunkedBodyPastTheLimitIsCut() async throws {
        var configuration = HTTPCachingProxy.Configuration()
        configuration.maximumRequestBodySize = 1000
        try await Self.withProxyAndIntranet(configuration: configuration) { running, _ in
            let client = try RawClient(port: running.port)
            client.send("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = String(repeating: "c", count: 400)
            for _ in 0..<3 { client.send("190\r\n\(chunk)\r\n") }
            let response = await client.response() ?? ""
            #expect(response.hasPrefix("HTTP/1.1 413"), "\(response.debugDescription)")
            #expect(running.origin.bodySizes("/x").allSatisfy { $0 <= 1000 }, "\(running.origin.bodySizes("/x"))")
        }
    }

    /// A body that stops arriving closes the connection at the body timeout (the idle timeout,
    /// much longer here, would not).
    @Test func slowBodyIsClosedAtTheTimeout() async throws {
        var configuration = HTTPCachingProxy.Configuration()
        configuration.requestBodyTimeout = .milliseconds(500)
        configuration.idleTimeout = .seconds(60)
        try await Self.withProxyAndIntranet(configuration: configuration) { running, _ in
            let client = try RawClient(port: running.port, patience: 10)
            client.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
            let started = ContinuousClock.now
            let response = await client.response()
            #expect(response == nil || response?.hasPrefix("HTTP/1.1 408") == true, "\(response.debugDescription)")
            #expect(ContinuousClock.now - started < .seconds(8), "closed by the body timeout, not the client's patience")
            #expect(running.origin.bodySizes("/x").allSatisfy { $0 < 10 })
        }
    }

    /// A request body passes through as it arrives: 2 GB uploaded through a `stash
    /// http-proxy` process raise its peak resident memory by far less than the body (held
    /// whole, it would take the process past 2 GB).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads VmHWM from /proc"))
    func uploadsStreamWithBoundedMemory() async throws {
        let origin = try await TestOrigin.start(clock: SystemClock())
        defer { origin.stop() }
        origin.set("/upload", .ok([]))
        let folder = TemporaryFolder("proxy-upload")
        let size = 2_000_000_000
        let child = try ChildProcess(BuiltProducts.executable("stash"), [
            "http-proxy", "--listen", "127.0.0.1:0", "--upstream", origin.base, "--root", folder.url.path,
            "--max-body-size", String(size),
        ])
        defer {
            child.kill()
            child.wait()
        }
        let port = try ProxyStreamingTests.port(from: child)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(120))
        do {
            let request = HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:\(port)", path: "/upload")
            _ = try await transport.send(request, body: Data("warm-up".utf8))
            let before = try ProxyStreamingTests.peakResidentBytes(of: child.processIdentifier)
            let part = Data(repeating: 0x61, count: 1 << 20)
            let sent = LockedValue(0)
            let body = HTTPBodyStream(next: {
                sent.withLock { count in
                    guard count < size else { return nil }
                    let next = part.prefix(size - count)
                    count += next.count
                    return next
                }
            })
            let (response, answer) = try await transport.stream(request, body: body, length: size)
            _ = try await answer.collect()
            let after = try ProxyStreamingTests.peakResidentBytes(of: child.processIdentifier)
            #expect(response.status == .ok)
            #expect(origin.bodySizes("/upload").last == size)
            // Alone the growth is a few megabytes; beside the rest of the suite, glibc's arenas
            // keep freed parts, so the bound is a generous 256 MiB, an eighth of the body.
            #expect(after - before < 256 << 20, "peak resident memory grew by \(after - before) bytes for a \(size)-byte upload")
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    /// In the default shared mode, a response that sets a cookie reaches the client whose
    /// request fetched it and is not stored: the next client's request goes to the origin,
    /// and no answer from the cache carries another client's `Set-Cookie`.
    @Test func setCookieIsNeverReplayedToAnotherClient() async throws {
        try await Self.withProxyAndIntranet { running, _ in
            running.origin.set("/login", .ok([("Cache-Control", "max-age=300"), ("Set-Cookie", "session=alice")]))
            let alice = try await Self.exchange("GET /login HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", port: running.port)
            #expect(alice.response.contains("Set-Cookie: session=alice"))
            running.origin.set("/login", .ok([("Cache-Control", "max-age=300")], body: "for bob"))
            let bob = try await Self.exchange("GET /login HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", port: running.port)
            #expect(!bob.response.contains("session=alice"))
            #expect(bob.response.hasSuffix("for bob"))
            #expect(running.origin.requests("/login").count == 2)
        }
    }

    /// A stored entry is input too: each damaged record (non-finite or out-of-range times,
    /// fields that do not parse…) under the URL's key in the proxy's disk cache is a miss
    /// answered from the origin, on the raw hit path and the full flow, never a trap.
    @Test func poisonedStoredEntriesAreMisses() async throws {
        let folder = TemporaryFolder("proxy-poisoned")
        let cache = try HTTPCache(diskCapacity: 1 << 20, directory: folder.url, mode: .shared)
        try await ProxyTests.Running.with(cache: cache) { running in
            running.origin.set("/x", .ok([("Cache-Control", "no-store")], body: "fresh from the origin"))
            let key = try #require(PrimaryCacheKey(scheme: "http", authority: "127.0.0.1:\(running.origin.port)", path: "/x"))
            for (name, data) in try StoredResponseHostileEntryTests.damagedRecords() {
                for head in ["GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "GET /x HTTP/1.1\r\nHost: a\r\nCache-Control: max-age=60\r\nConnection: close\r\n\r\n"] {
                    cache.memory.removeValue(forKey: key.storageKey)
                    try #require(cache.hybrid).disk.set(data, forKey: key.storageKey)
                    let answer = try await Self.exchange(head, port: running.port)
                    #expect(answer.status == 200 && answer.response.hasSuffix("fresh from the origin"), "\(name): \(answer.response.debugDescription)")
                }
            }
        }
    }
}
