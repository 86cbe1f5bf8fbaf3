import StashHTTP
import Testing

/// RFC 9111 §4.2.3 and §5.1: the corrected initial age and the `Age` of cached answers.
struct AgeTests {
    static let scenarios: [Scenario] = [
        Scenario(name: "every cached answer carries Age", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600")]), contact: .plain),
            Step(advance: 42, contact: .none, expectFields: [("Age", "42")]),
        ]),
        Scenario(name: "upstream Age is added to resident time", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Age", "30")]), contact: .plain),
            Step(advance: 10, contact: .none, expectFields: [("Age", "40")]),
        ]),
        Scenario(name: "upstream Age can make a response stale", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Age", "700")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "apparent age from an old Date", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=900"), ("Date", "Tue, 14 Nov 2023 22:03:20 GMT")]), contact: .plain),
            Step(contact: .none, expectFields: [("Age", "600")]),
        ]),
        Scenario(name: "invalid Age counts as zero", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Age", "7200.0")]), contact: .plain),
            Step(advance: 5, contact: .none, expectFields: [("Age", "5")]),
        ]),
        Scenario(name: "a list Age counts by its first member", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Age", "7200, 0")]), contact: .plain),
            Step(contact: .plain),
        ]),
        Scenario(name: "several Age lines count by the first", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Age", "0"), ("Age", "7200")]), contact: .plain),
            Step(advance: 5, contact: .none, expectFields: [("Age", "5")]),
        ]),
        Scenario(name: "Date is passed through unchanged", steps: [
            Step(reply: .ok([("Cache-Control", "max-age=600"), ("Date", "Tue, 14 Nov 2023 22:13:20 GMT")]), contact: .plain),
            Step(advance: 5, contact: .none, expectFields: [("Date", "Tue, 14 Nov 2023 22:13:20 GMT")]),
        ]),
    ]

    @Test(arguments: Way.allCases) func age(way: Way) async throws {
        try await ScenarioRunner.run(Self.scenarios, way: way)
    }
}
