import StashHTTP
import Testing

/// RFC 9213: `CDN-Cache-Control` and `Surrogate-Control` govern a shared cache in place of
/// `Cache-Control`; a private cache ignores them.
struct TargetedCacheControlTests {
    static let scenarios: [Scenario] = [
        Scenario(name: "CDN max-age stores despite Cache-Control no-store", modes: [.shared], steps: [
            Step(reply: .ok([("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600")]), contact: .plain),
            Step(advance: 30, contact: .none, expectFields: [("CDN-Cache-Control", "max-age=600")]),
        ]),
        Scenario(name: "CDN no-store beats a fresh Cache-Control", modes: [.shared], steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("CDN-Cache-Control", "no-store")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "CDN private is not stored", modes: [.shared], steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("CDN-Cache-Control", "private")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "CDN max-age shorter than Cache-Control wins", modes: [.shared], steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("CDN-Cache-Control", "max-age=10")]), contact: .plain),
            Step(advance: 20, contact: .plain),
        ]),
        Scenario(name: "an unparseable CDN field is ignored", modes: [.shared], steps: [
            Step(reply: .ok([("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=\"600\"")]), contact: .plain),
            Step(contact: .plain),
            Step(reply: .ok([("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=600, &&&")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "Surrogate-Control max-age with a target stores", modes: [.shared], steps: [
            Step(reply: .ok([("Cache-Control", "no-store"), ("Surrogate-Control", "max-age=600;edge")]), contact: .plain),
            Step(advance: 30, contact: .none),
        ]),
        Scenario(name: "Surrogate-Control no-store beats a fresh Cache-Control", modes: [.shared], steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Surrogate-Control", "no-store")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "a private cache ignores targeted fields", modes: [.private], steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("CDN-Cache-Control", "no-store")]), contact: .plain),
            Step(contact: .none),
        ]),
    ]

    @Test(arguments: Way.allCases) func targeted(way: Way) async throws {
        try await ScenarioRunner.run(Self.scenarios, way: way)
    }
}
