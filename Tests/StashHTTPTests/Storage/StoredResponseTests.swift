import Foundation
import HTTPTypes
import Testing
@testable import StashHTTP

/// A stored response shares one storage between copies: a change to one copy must leave the
/// others as they were, and everything worked out from the fields (freshness, the response
/// handed out for an `Age`) must follow the change.
struct StoredResponseTests {
    static func sample(maxAge: Int = 60) -> StoredResponse {
        StoredResponse(
            status: 200, reasonPhrase: "OK",
            headerFields: [.cacheControl: "max-age=\(maxAge)", .contentType: "text/plain", .contentLength: "5", .age: "3"],
            body: Data("hello".utf8),
            requestTime: Date(timeIntervalSince1970: 1_000), responseTime: Date(timeIntervalSince1970: 1_002),
            selectingFields: ["accept-language": "de"]
        )
    }

    @Test func aChangedCopyLeavesTheOriginalAlone() {
        let original = Self.sample()
        _ = original.response(age: 10) // fills the original's served response
        var changed = original
        changed.headerFields[.cacheControl] = "max-age=5"
        changed.body = Data("bye".utf8)
        changed.selectingFields = ["accept-language": "fr"]

        #expect(original.freshnessLifetime(mode: .private) == 60)
        #expect(changed.freshnessLifetime(mode: .private) == 5)
        #expect(original.response(age: 10).headerFields[.cacheControl] == "max-age=60")
        #expect(changed.response(age: 10).headerFields[.cacheControl] == "max-age=5")
        #expect(changed.response(age: 10).headerFields[.contentLength] == "3")
        #expect(original.response(age: 10).headerFields[.contentLength] == "5")
        #expect(original.selectingFields == ["accept-language": "de"])
        #expect(original != changed)
        #expect(original == Self.sample())
    }

    @Test func aChangeToAnUnsharedResponseRenewsWhatWasWorkedOut() {
        var response = Self.sample()
        #expect(response.response(age: 10).headerFields[.cacheControl] == "max-age=60")
        response.headerFields[.cacheControl] = "no-cache, max-age=30"
        #expect(response.response(age: 10).headerFields[.cacheControl] == "no-cache, max-age=30")
        #expect(response.freshnessLifetime(mode: .shared) == 30)
        #expect(response.derived.sharedRules.noCache)
        // Age 3 on a response that took 2 s to arrive: corrected initial age 5.
        #expect(response.currentAge(now: Date(timeIntervalSince1970: 1_012)) == 15)
        response.requestTime = Date(timeIntervalSince1970: 1_002)
        #expect(response.currentAge(now: Date(timeIntervalSince1970: 1_012)) == 13)
    }

    @Test func theServedResponseFollowsTheAgeInWholeSeconds() {
        let response = Self.sample()
        #expect(response.response(age: 7.2).headerFields[.age] == "7")
        #expect(response.response(age: 7.9).headerFields[.age] == "7")
        #expect(response.response(age: 8.0).headerFields[.age] == "8")
        #expect(response.response(age: 7.5).headerFields[.age] == "7")
        #expect(response.response(age: 7.5).headerFields[values: .age].count == 1)
    }
}
