import Testing
@testable import StashHTTP

/// Entity-tag comparison (RFC 9110 §8.8.3.2), the table of the RFC itself.
struct EntityTagTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var first: String
        var second: String
        var strong: Bool
        var weak: Bool
        var testDescription: String { "\(first) vs \(second)" }
    }

    static let cases: [Case] = [
        Case(first: "W/\"1\"", second: "W/\"1\"", strong: false, weak: true),
        Case(first: "W/\"1\"", second: "W/\"2\"", strong: false, weak: false),
        Case(first: "W/\"1\"", second: "\"1\"", strong: false, weak: true),
        Case(first: "\"1\"", second: "\"1\"", strong: true, weak: true),
        Case(first: "abc", second: "\"abc\"", strong: true, weak: true),
    ]

    @Test(arguments: cases) func comparison(_ test: Case) throws {
        let first = try #require(EntityTag(test.first))
        let second = try #require(EntityTag(test.second))
        #expect(first.strongMatches(second) == test.strong)
        #expect(first.weakMatches(second) == test.weak)
    }

    @Test func ifNoneMatchLists() {
        #expect(EntityTag.list(["\"a\", W/\"b\""])?.map(\.fieldValue) == ["\"a\"", "W/\"b\""])
        #expect(EntityTag.list(["*"]) == nil)
        #expect(EntityTag("W/\"x\"")?.fieldValue == "W/\"x\"")
    }
}
