import StashHTTP
import Testing
import HTTPTypes

/// RFC 9111 §4.4 (invalidation) and §4.3.5 / §3 (HEAD answered from a stored GET).
struct InvalidationTests {
    static let fresh: [(String, String)] = [("Cache-Control", "max-age=600")]

    static let scenarios: [Scenario] = [
        Scenario(name: "successful POST invalidates", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(method: .post, contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "PUT and DELETE invalidate", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(method: .put, contact: .plain),
            Step(contact: .plain),
            Step(method: .delete, contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "failed POST does not invalidate", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(method: .post, reply: .status(500), contact: .plain, status: 500),
            Step(reply: .ok(fresh), contact: .none),
        ]),
        Scenario(name: "HEAD is answered from a stored GET", steps: [
            Step(reply: .ok(fresh, body: "content"), contact: .plain),
            Step(method: .head, contact: .none, body: ""),
        ]),
        Scenario(name: "safe OPTIONS does not invalidate", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(method: .options, contact: .plain),
            Step(contact: .none),
        ]),
    ]

    @Test(arguments: Way.allCases) func invalidation(way: Way) async throws {
        try await ScenarioRunner.run(Self.scenarios, way: way)
    }

    /// `Location` and `Content-Location` of the same origin are invalidated too.
    static let related: [Scenario] = [
        Scenario(name: "target", path: "/related/target", steps: [Step(reply: .ok(fresh), contact: .plain)]),
        Scenario(name: "located", path: "/related/located", steps: [Step(reply: .ok(fresh), contact: .plain)]),
        Scenario(name: "content-located", path: "/related/content", steps: [Step(reply: .ok(fresh), contact: .plain)]),
        Scenario(name: "post", path: "/related/post", steps: [
            Step(method: .post, reply: .status(201, [("Location", "/related/located"), ("Content-Location", "content")]), contact: .plain, status: 201),
        ]),
        Scenario(name: "located again", path: "/related/located", steps: [Step(contact: .plain)]),
        Scenario(name: "content again", path: "/related/content", steps: [Step(contact: .plain)]),
        Scenario(name: "target kept", path: "/related/target", steps: [Step(contact: .none)]),
    ]

    @Test(arguments: Way.allCases) func locationInvalidation(way: Way) async throws {
        try await ScenarioRunner.run(Self.related, way: way)
    }
}
