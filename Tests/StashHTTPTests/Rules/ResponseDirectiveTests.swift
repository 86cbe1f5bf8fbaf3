import StashHTTP
import Testing

/// RFC 9111 §5.2.2 and RFC 5861: what responses tell the cache.
struct ResponseDirectiveTests {
    static let scenarios: [Scenario] = [
        Scenario(name: "no-cache is stored but validated on every use", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600, no-cache"), ("ETag", "\"v1\"")]), contact: .plain),
            Step(reply: .status(304, [("ETag", "\"v1\"")]), contact: .conditional, body: "hello"),
            Step(contact: .conditional, body: "hello"),
        ]),
        Scenario(name: "qualified no-cache only drops the named field", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600, no-cache=\"Set-Cookie\""), ("Set-Cookie", "a=b")]), contact: .plain),
            Step(contact: .none, expectFields: [("Set-Cookie", nil)]),
        ]),
        Scenario(name: "must-revalidate forbids stale on error", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10, must-revalidate")]), contact: .plain),
            Step(reply: .status(503), advance: 20, contact: .plain, status: 503),
        ]),
        Scenario(name: "proxy-revalidate forbids stale on error", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10, proxy-revalidate, stale-if-error=600")]), contact: .plain),
            Step(reply: .status(503), advance: 20, contact: .plain, status: 503),
        ]),
        Scenario(name: "stale-if-error serves stale on 5xx", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10, stale-if-error=600")], body: "kept"), contact: .plain),
            Step(reply: .status(503), advance: 20, contact: .plain, status: 200, body: "kept"),
            Step(advance: 700, contact: .plain, status: 503),
        ]),
        Scenario(name: "server error without stale-if-error is passed on", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10")]), contact: .plain),
            Step(reply: .status(503), advance: 20, contact: .plain, status: 503),
        ]),
        Scenario(name: "stale-while-revalidate serves stale at once", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10, stale-while-revalidate=600")], body: "old"), contact: .plain),
            Step(reply: TestOrigin.Reply(fields: [("Cache-Control", "max-age=10, stale-while-revalidate=600")], body: "new", delay: 500),
                 advance: 20, contact: .none, body: "old"),
        ]),
        Scenario(name: "stale-while-revalidate window ends", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10, stale-while-revalidate=30")]), contact: .plain),
            Step(advance: 100, contact: .plain),
        ]),
        Scenario(name: "immutable is served while fresh", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600, immutable")]), contact: .plain),
            Step(advance: 300, contact: .none),
        ]),
        Scenario(name: "older stored response survives a no-store one", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10"), ("ETag", "\"v1\"")], body: "first"), contact: .plain),
            Step(reply: .ok([("Cache-Control", "no-store")], body: "second"), advance: 20, contact: .conditional, body: "second"),
            Step(reply: .status(304, [("ETag", "\"v1\""), ("Cache-Control", "max-age=600")]), contact: .conditional, body: "first"),
        ]),
    ]

    @Test(arguments: Way.allCases) func responseDirectives(way: Way) async throws {
        try await ScenarioRunner.run(Self.scenarios, way: way)
    }
}
