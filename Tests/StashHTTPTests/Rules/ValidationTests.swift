import StashHTTP
import Testing

/// RFC 9111 §4.3: conditional requests, 304 updates, and the cache answering conditionals.
struct ValidationTests {
    static let scenarios: [Scenario] = [
        Scenario(name: "stale ETag response is validated with If-None-Match", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10"), ("ETag", "\"v1\"")], body: "body"), contact: .plain),
            Step(reply: .status(304, [("ETag", "\"v1\""), ("Cache-Control", "max-age=600")]), advance: 20,
                 contact: .conditional, body: "body", upstreamField: ("If-None-Match", "\"v1\"")),
            Step(advance: 100, contact: .none, body: "body"),
        ]),
        Scenario(name: "weak ETag is sent back as is", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10"), ("ETag", "W/\"v1\"")]), contact: .plain),
            Step(reply: .status(304, [("ETag", "W/\"v1\"")]), advance: 20, contact: .conditional, upstreamField: ("If-None-Match", "W/\"v1\"")),
        ]),
        Scenario(name: "Last-Modified is validated with If-Modified-Since", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10"), ("Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT")]), contact: .plain),
            Step(reply: .status(304, [("Cache-Control", "max-age=600")]), advance: 20,
                 contact: .conditional, upstreamField: ("If-Modified-Since", "Mon, 13 Nov 2023 22:13:20 GMT")),
            Step(advance: 100, contact: .none),
        ]),
        Scenario(name: "304 replaces stored fields", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10"), ("ETag", "\"v1\""), ("Test-Header", "A"), ("Kept", "k")]), contact: .plain),
            Step(reply: .status(304, [("ETag", "\"v1\""), ("Cache-Control", "max-age=600"), ("Test-Header", "B")]), advance: 20,
                 contact: .conditional, expectFields: [("Test-Header", "B"), ("Kept", "k")]),
            Step(advance: 10, contact: .none, expectFields: [("Test-Header", "B"), ("Kept", "k")]),
        ]),
        Scenario(name: "a full response to a validation replaces the stored one", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10"), ("ETag", "\"v1\"")], body: "one"), contact: .plain),
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("ETag", "\"v2\"")], body: "two"), advance: 20, contact: .conditional, body: "two"),
            Step(contact: .none, body: "two"),
        ]),
        Scenario(name: "client If-None-Match gets 304 from a fresh stored response", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("ETag", "\"v1\"")]), contact: .plain),
            Step(fields: [("If-None-Match", "\"x\", W/\"v1\"")], contact: .none, status: 304, expectFields: [("ETag", "\"v1\"")]),
            Step(fields: [("If-None-Match", "\"other\"")], contact: .none, status: 200),
        ]),
        Scenario(name: "client If-Modified-Since gets 304", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT")]), contact: .plain),
            Step(fields: [("If-Modified-Since", "Mon, 13 Nov 2023 22:13:20 GMT")], contact: .none, status: 304),
            Step(fields: [("If-Modified-Since", "Sun, 12 Nov 2023 22:13:20 GMT")], contact: .none, status: 200),
        ]),
        Scenario(name: "If-None-Match takes precedence over If-Modified-Since", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("ETag", "\"v1\""), ("Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT")]), contact: .plain),
            Step(fields: [("If-None-Match", "\"v1\""), ("If-Modified-Since", "Sun, 12 Nov 2023 22:13:20 GMT")], contact: .none, status: 304),
        ]),
        Scenario(name: "client conditional on a miss is forwarded", steps: [
            Step(fields: [("If-None-Match", "\"v1\"")], reply: .status(304, [("ETag", "\"v1\"")]), contact: .conditional, status: 304),
        ]),
    ]

    @Test(arguments: Way.allCases) func validation(way: Way) async throws {
        try await ScenarioRunner.run(Self.scenarios, way: way)
    }
}
