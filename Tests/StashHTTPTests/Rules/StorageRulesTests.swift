import StashHTTP
import Testing
import HTTPTypes

/// RFC 9111 §3: which responses may be stored.
struct StorageRulesTests {
    static let scenarios: [Scenario] = [
        Scenario(name: "max-age is stored", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600")]), contact: .plain),
            Step(contact: .none, body: "hello"),
        ]),
        Scenario(name: "no-store is never stored", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600, no-store")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "must-understand lifts no-store for a known status", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600, no-store, must-understand")]), contact: .plain),
            Step(contact: .none),
        ]),
        Scenario(name: "must-understand with an unknown status is not stored", steps: [
            Step(reply: .status(599, [("Cache-Control", "max-age=600, must-understand")]), contact: .plain, status: 599),
            Step(contact: .plain, status: 599),
        ]),
        Scenario(name: "NO-STORE matches case-insensitively", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600, No-StOrE")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "private is not stored by a shared cache", modes: [.shared], steps: [
            Step(reply: .ok([("Cache-Control", "private, max-age=600")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "private is stored by a private cache", modes: [.private], steps: [
            Step(reply: .ok([("Cache-Control", "private, max-age=600")]), contact: .plain),
            Step(contact: .none),
        ]),
        Scenario(name: "Authorization blocks a shared cache", modes: [.shared], steps: [
            Step(fields: [("Authorization", "Bearer a")], reply: .ok([("Cache-Control", "max-age=600")]), contact: .plain),
            Step(fields: [("Authorization", "Bearer a")], contact: .plain),
        ]),
        Scenario(name: "Authorization with public is shared", modes: [.shared], steps: [
            Step(fields: [("Authorization", "Bearer a")], reply: .ok([("Cache-Control", "public, max-age=600")]), contact: .plain),
            Step(fields: [("Authorization", "Bearer a")], contact: .none),
        ]),
        Scenario(name: "206 is not stored", steps: [
            Step(reply: .status(206, [("Cache-Control", "max-age=600"), ("Content-Range", "bytes 0-4/10")]), contact: .plain, status: 206),
            Step(contact: .plain, status: 206),
        ]),
        Scenario(name: "explicit freshness makes any final status storable", steps: [
            Step(reply: .status(500, [("Cache-Control", "max-age=600")]), contact: .plain, status: 500),
            Step(contact: .none, status: 500),
        ]),
        Scenario(name: "heuristic 404 is stored", steps: [
            Step(reply: .status(404, [("Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT")]), contact: .plain, status: 404),
            Step(advance: 10, contact: .none, status: 404),
        ]),
        Scenario(name: "heuristic 201 is not reused", steps: [
            Step(reply: .status(201, [("Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT")]), contact: .plain, status: 201),
            Step(advance: 10, contact: .plain, status: 201),
        ]),
        Scenario(name: "public makes an unknown status heuristically fresh", steps: [
            Step(reply: .status(599, [("Cache-Control", "public"), ("Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT")]), contact: .plain, status: 599),
            Step(advance: 10, contact: .none, status: 599),
        ]),
        Scenario(name: "POST responses are not stored", steps: [
            Step(method: .post, reply: .ok([("Cache-Control", "max-age=600")]), contact: .plain),
            Step(method: .post, contact: .plain),
        ]),
        Scenario(name: "Connection-listed and no-cache-listed fields are not stored", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600, no-cache=\"a\""), ("a", "1"), ("b", "2"), ("Connection", "c"), ("c", "3")]), contact: .plain),
            Step(contact: .none, expectFields: [("a", nil), ("b", "2"), ("c", nil)]),
        ]),
    ]

    @Test(arguments: Way.allCases) func storageRules(way: Way) async throws {
        try await ScenarioRunner.run(Self.scenarios, way: way)
    }
}
