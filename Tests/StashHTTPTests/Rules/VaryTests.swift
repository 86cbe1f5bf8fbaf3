import StashHTTP
import Testing

/// RFC 9111 §4.1: secondary keys from `Vary`.
struct VaryTests {
    static let fresh: [(String, String)] = [("Cache-Control", "max-age=600"), ("Vary", "Foo")]

    static let scenarios: [Scenario] = [
        Scenario(name: "matching request is served", steps: [
            Step(fields: [("Foo", "1")], reply: .ok(fresh), contact: .plain),
            Step(fields: [("Foo", "1"), ("Other", "x")], contact: .none),
        ]),
        Scenario(name: "different value is not served", steps: [
            Step(fields: [("Foo", "1")], reply: .ok(fresh), contact: .plain),
            Step(fields: [("Foo", "2")], contact: .plain),
        ]),
        Scenario(name: "missing field is not served", steps: [
            Step(fields: [("Foo", "1")], reply: .ok(fresh), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "absent in both matches", steps: [
            Step(reply: .ok(fresh), contact: .plain),
            Step(contact: .none),
        ]),
        Scenario(name: "several variants live side by side", steps: [
            Step(fields: [("Foo", "1")], reply: .ok(fresh, body: "one"), contact: .plain, body: "one"),
            Step(fields: [("Foo", "2")], reply: .ok(fresh, body: "two"), contact: .plain, body: "two"),
            Step(fields: [("Foo", "1")], contact: .none, body: "one"),
            Step(fields: [("Foo", "2")], contact: .none, body: "two"),
        ]),
        Scenario(name: "whitespace and line splits are normalised", steps: [
            Step(fields: [("Foo", "1,2")], reply: .ok(fresh), contact: .plain),
            Step(fields: [("Foo", " 1, 2 ")], contact: .none),
            Step(fields: [("Foo", "1"), ("Foo", "2")], contact: .none),
        ]),
        Scenario(name: "Accept-Language matches regardless of case and order", steps: [
            Step(fields: [("Accept-Language", "en, de;q=0.5")], reply: .ok([("Cache-Control", "max-age=600"), ("Vary", "Accept-Language")]), contact: .plain),
            Step(fields: [("Accept-Language", "DE; q=0.5, En")], contact: .none),
            Step(fields: [("Accept-Language", "en, fr")], contact: .plain),
        ]),
        Scenario(name: "other fields keep their order", steps: [
            Step(fields: [("Foo", "a, b")], reply: .ok([("Cache-Control", "max-age=600"), ("Vary", "Foo")]), contact: .plain),
            Step(fields: [("Foo", "b, a")], contact: .plain),
        ]),
        Scenario(name: "field names match case-insensitively", steps: [
            Step(fields: [("foo", "1"), ("Bar", "x")], reply: .ok([("Cache-Control", "max-age=600"), ("Vary", "FOO, bar")]), contact: .plain),
            Step(fields: [("FOO", "1"), ("bar", "x")], contact: .none),
            Step(fields: [("FOO", "1"), ("bar", "y")], contact: .plain),
        ]),
        Scenario(name: "Vary star never matches", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Vary", "*")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "validation sends the selecting fields", steps: [
            Step(fields: [("Foo", "1")], reply: .ok(fresh + [("ETag", "\"v1\"")]), contact: .plain),
            Step(fields: [("Foo", "1")], reply: .status(304, [("ETag", "\"v1\""), ("Cache-Control", "max-age=600")]), advance: 700,
                 contact: .conditional, upstreamField: ("Foo", "1")),
        ]),
    ]

    @Test(arguments: Way.allCases) func vary(way: Way) async throws {
        try await ScenarioRunner.run(Self.scenarios, way: way)
    }
}
