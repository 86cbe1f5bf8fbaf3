import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import StashCore
import StashHTTP
import StashHTTPAsyncClient
import StashHTTPServer
import StashToolSupport
import Testing

/// Whether and how a step reached the origin.
enum Contact: Sendable, Equatable {
    /// Answered by the cache alone.
    case none
    /// Forwarded unconditionally.
    case plain
    /// Forwarded as a conditional request (`If-None-Match` / `If-Modified-Since`).
    case conditional
}

/// One request of a table-driven scenario and what must come of it.
struct Step: Sendable {
    var method: HTTPRequest.Method = .get
    var fields: [(String, String)] = []
    /// What the origin answers from this step on.
    var reply: TestOrigin.Reply?
    /// Seconds the clock moves before the request.
    var advance: TimeInterval = 0
    var contact: Contact
    var status = 200
    /// Fields the answer must carry (`nil` value: must not carry).
    var expectFields: [(String, String?)] = []
    var body: String?
    /// A field sent upstream with this value.
    var upstreamField: (String, String)?
}

/// A named sequence of steps on one URL, in one or both cache modes.
struct Scenario: Sendable, CustomTestStringConvertible {
    var name: String
    var modes: [HTTPCacheMode] = [.private, .shared]
    var path: String?
    var steps: [Step]
    var testDescription: String { name }
}

/// The two ways a scenario is run: through ``CachingHTTPClient`` and through the proxy.
enum Way: String, Sendable, CaseIterable {
    case client, proxy
}

/// Runs scenarios against a real origin, through the caching client or the caching proxy,
/// with a manual clock shared by the origin's `Date` and the cache.
struct ScenarioRunner {
    static func run(_ scenarios: [Scenario], way: Way) async throws {
        for mode in HTTPCacheMode.allCases {
            let selected = scenarios.filter { $0.modes.contains(mode) }
            guard !selected.isEmpty else { continue }
            try await run(selected, way: way, mode: mode)
        }
    }

    private static func run(_ scenarios: [Scenario], way: Way, mode: HTTPCacheMode) async throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let clock = ManualClock(now: start)
        let origin = try await TestOrigin.start(clock: clock)
        defer { origin.stop() }
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 0, mode: mode, collapsesRequests: false, clock: clock)
        var proxy: HTTPCachingProxy?
        var proxyTask: Task<Void, any Error>?
        var base = origin.base
        if way == .proxy {
            let running = HTTPCachingProxy(upstream: URL(string: origin.base)!, cache: cache)
            let server = try await ListeningServer.start("proxy") { listening in try await running.run(port: 0) { listening($0) } }
            proxyTask = server.task
            base = "http://127.0.0.1:\(server.port)"
            proxy = running
        }
        let client = CachingHTTPClient(cache: cache, transport: transport)
        do {
            for scenario in scenarios {
                clock.set(start)
                let path = scenario.path ?? "/" + scenario.name.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
                for (index, step) in scenario.steps.enumerated() {
                    let label = "\(scenario.name) [\(mode) \(way) step \(index + 1)]"
                    if let reply = step.reply { origin.set(path, reply) }
                    clock.advance(by: step.advance)
                    let before = origin.requests(path).count
                    var request = HTTPRequest(method: step.method, scheme: "http", authority: String(base.dropFirst(7)), path: path)
                    for (name, value) in step.fields { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
                    let (response, body) = if way == .client {
                        try await client.send(request).pair
                    } else {
                        try await transport.send(request, body: Data())
                    }
                    let seen = origin.requests(path)
                    let contact: Contact = seen.count == before ? .none
                        : (seen.last?.headerFields[.ifNoneMatch] != nil || seen.last?.headerFields[.ifModifiedSince] != nil) ? .conditional : .plain
                    #expect(contact == step.contact, "\(label): origin contact")
                    #expect(response.status.code == step.status, "\(label): status")
                    for (name, value) in step.expectFields {
                        let actual = response.headerFields[HTTPField.Name(name)!]
                        #expect(actual == value, "\(label): field \(name)")
                    }
                    if let expected = step.body { #expect(String(decoding: body, as: UTF8.self) == expected, "\(label): body") }
                    if let (name, value) = step.upstreamField, contact != .none {
                        #expect(seen.last?.headerFields[HTTPField.Name(name)!] == value, "\(label): upstream \(name)")
                    }
                }
            }
        } catch {
            proxyTask?.cancel()
            try? await proxy?.shutdown()
            try? await transport.shutdown()
            throw error
        }
        proxyTask?.cancel()
        try? await proxy?.shutdown()
        try await transport.shutdown()
    }
}

extension CachedHTTPResponse {
    var pair: (HTTPResponse, Data) { (response, body) }
}

extension TestOrigin.Reply {
    /// A 200 with these fields.
    static func ok(_ fields: [(String, String)], body: String = "hello") -> Self {
        Self(status: 200, fields: fields, body: body)
    }

    static func status(_ code: Int, _ fields: [(String, String)] = [], body: String = "hello") -> Self {
        Self(status: code, fields: fields, body: body)
    }

    static var disconnect: Self { Self(disconnect: true) }
}
