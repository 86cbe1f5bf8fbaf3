import StashHTTP
import Testing

/// RFC 9111 §5.2.1: what requests ask of the cache.
struct RequestDirectiveTests {
    static let fresh: [(String, String)] = [("Cache-Control", "max-age=600"), ("ETag", "\"v1\"")]

    static let scenarios: [Scenario] = [
        Scenario(name: "max-age=0 validates", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(fields: [("Cache-Control", "max-age=0")], advance: 1, contact: .conditional),
        ]),
        Scenario(name: "max-age accepts a young enough response", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(fields: [("Cache-Control", "max-age=100")], advance: 50, contact: .none),
            Step(fields: [("Cache-Control", "max-age=100")], advance: 100, contact: .conditional),
        ]),
        Scenario(name: "max-stale serves stale content", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10")]), contact: .plain),
            Step(fields: [("Cache-Control", "max-stale=100")], advance: 50, contact: .none),
            Step(fields: [("Cache-Control", "max-stale")], advance: 500, contact: .none),
            Step(fields: [("Cache-Control", "max-stale=10")], contact: .plain),
        ]),
        Scenario(name: "max-stale does not override must-revalidate", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=10, must-revalidate")]), contact: .plain),
            Step(fields: [("Cache-Control", "max-stale=100")], advance: 50, contact: .plain),
        ]),
        Scenario(name: "min-fresh needs remaining freshness", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(fields: [("Cache-Control", "min-fresh=500")], advance: 50, contact: .none),
            Step(fields: [("Cache-Control", "min-fresh=500")], advance: 100, contact: .conditional),
        ]),
        Scenario(name: "no-cache validates a fresh response", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(fields: [("Cache-Control", "no-cache")], reply: .status(304, [("ETag", "\"v1\"")]), contact: .conditional),
        ]),
        Scenario(name: "Pragma no-cache without Cache-Control validates", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(fields: [("Pragma", "no-cache")], reply: .status(304, [("ETag", "\"v1\"")]), contact: .conditional),
        ]),
        Scenario(name: "no-store goes to the origin and stores nothing", steps: [
            Step(fields: [("Cache-Control", "no-store")], reply: .ok(fresh), contact: .plain),
            Step(contact: .plain),
            Step(contact: .none),
        ]),
        Scenario(name: "only-if-cached answers 504 when nothing is stored", steps: [
            Step(fields: [("Cache-Control", "only-if-cached")], reply: .ok(fresh), contact: .none, status: 504),
            Step(contact: .plain),
            Step(fields: [("Cache-Control", "only-if-cached")], contact: .none, status: 200),
        ]),
    ]

    @Test(arguments: Way.allCases) func requestDirectives(way: Way) async throws {
        try await ScenarioRunner.run(Self.scenarios, way: way)
    }
}
