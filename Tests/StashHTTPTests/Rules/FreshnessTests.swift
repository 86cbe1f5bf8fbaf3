import StashHTTP
import Testing

/// RFC 9111 §4.2.1–4.2.2: freshness lifetime, explicit and heuristic.
struct FreshnessTests {
    static let scenarios: [Scenario] = [
        Scenario(name: "fresh within max-age, stale after", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=60")]), contact: .plain),
            Step(advance: 30, contact: .none),
            Step(advance: 40, contact: .plain),
        ]),
        Scenario(name: "s-maxage overrides max-age in a shared cache", modes: [.shared], steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600, s-maxage=10")]), contact: .plain),
            Step(advance: 20, contact: .plain),
        ]),
        Scenario(name: "s-maxage is ignored by a private cache", modes: [.private], steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600, s-maxage=10")]), contact: .plain),
            Step(advance: 20, contact: .none),
        ]),
        Scenario(name: "Expires minus Date", steps: [
            Step(reply: .ok([("Date", "Tue, 14 Nov 2023 22:13:20 GMT"), ("Expires", "Tue, 14 Nov 2023 22:14:20 GMT")]), contact: .plain),
            Step(advance: 30, contact: .none),
            Step(advance: 40, contact: .plain),
        ]),
        Scenario(name: "max-age beats Expires", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Expires", "Tue, 14 Nov 2023 22:13:20 GMT")]), contact: .plain),
            Step(advance: 30, contact: .none),
        ]),
        Scenario(name: "Expires 0 is already stale", steps: [
            Step(reply: .ok([("Expires", "0")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "invalid Expires is already stale", steps: [
            Step(reply: .ok([("Expires", "next tuesday")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "Expires almost in IMF-fixdate form is already stale", steps: [
            Step(reply: .ok([("Expires", "Wed, 15 Nov 23 22:13:20 GMT")]), contact: .plain),
            Step(contact: .plain),
            Step(reply: .ok([("Expires", "Wed, 15-Nov-2023 22:13:20 GMT")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "RFC 850 and asctime Expires are understood", steps: [
            Step(reply: .ok([("Expires", "Wednesday, 15-Nov-23 22:13:20 GMT")]), contact: .plain),
            Step(advance: 60, contact: .none),
        ]),
        Scenario(name: "heuristic is 10 percent of Date minus Last-Modified", steps: [
            // Last-Modified 1000 s before Date: fresh for 100 s.
            Step(reply: .ok([("Last-Modified", "Tue, 14 Nov 2023 21:56:40 GMT")]), contact: .plain),
            Step(advance: 90, contact: .none),
            Step(advance: 20, contact: .conditional),
        ]),
        Scenario(name: "first of duplicate max-age wins", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Cache-Control", "max-age=1")]), contact: .plain),
            Step(advance: 30, contact: .none),
        ]),
        Scenario(name: "quoted max-age is accepted", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=\"600\"")]), contact: .plain),
            Step(advance: 30, contact: .none),
        ]),
        Scenario(name: "max-age inside a quoted extension is ignored", steps: [
            Step(reply: .ok([("Cache-Control", "extension=\"max-age=600\", max-age=1")]), contact: .plain),
            Step(advance: 30, contact: .plain),
        ]),
        Scenario(name: "malformed max-age is not fresh", steps: [
            Step(reply: .ok([("Cache-Control", "max-age =600")]), contact: .plain),
            Step(advance: 1, contact: .plain),
        ]),
    ]

    @Test(arguments: Way.allCases) func freshness(way: Way) async throws {
        try await ScenarioRunner.run(Self.scenarios, way: way)
    }
}
