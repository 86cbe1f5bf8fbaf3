import Foundation
import StashCore
@testable import StashHTTP
import Testing

/// RFC 6265 section 5.2: reading `Set-Cookie` values, including the malformed ones servers send.
struct SetCookieParsingTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func parse(_ line: String) throws -> SetCookie {
        try SetCookie.parse(line, now: now).get()
    }

    @Test func nameValueAndAttributes() throws {
        let cookie = try parse(" id = a3fWa ; Domain=.Example.COM; Path=/docs; Secure; HttpOnly; SameSite=lax; Unknown=1")
        #expect(cookie.name == "id")
        #expect(cookie.value == "a3fWa")
        #expect(cookie.domain == "example.com")
        #expect(cookie.path == "/docs")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        #expect(cookie.expires == nil)
    }

    @Test func valuesKeepQuotesAndEqualsSigns() throws {
        #expect(try parse("a=\"x y\"").value == "\"x y\"")
        #expect(try parse("token=abc==; Path=/").value == "abc==")
        #expect(try parse("empty=").value == "")
    }

    @Test func maxAgeWinsOverExpiresWhicheverComesFirst() throws {
        let first = try parse("a=1; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT")
        let second = try parse("a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Max-Age=60")
        #expect(first.expires == now.addingTimeInterval(60))
        #expect(second.expires == now.addingTimeInterval(60))
        #expect(try parse("a=1; Max-Age=0").expires == .distantPast)
        #expect(try parse("a=1; Max-Age=-5").expires == .distantPast)
        #expect(try parse("a=1; Max-Age=1e3").expires == nil)
        #expect(try parse("a=1; Max-Age=99999999999999999999999").expires != nil)
    }

    @Test func theLastAttributeOfANameWins() throws {
        let cookie = try parse("a=1; Path=/one; Path=/two; Domain=a.example; Domain=b.example")
        #expect(cookie.path == "/two")
        #expect(cookie.domain == "b.example")
    }

    @Test func pathsNotStartingWithASlashAreIgnored() throws {
        #expect(try parse("a=1; Path=relative").path == nil)
        #expect(try parse("a=1; Path=").path == nil)
        #expect(try parse("a=1; Domain=").domain == nil)
    }

    @Test(arguments: [
        ("Wed, 09 Jun 2021 10:18:14 GMT", 1_623_233_894.0),
        ("Wednesday, 09-Jun-21 10:18:14 GMT", 1_623_233_894.0),
        ("Wed Jun  9 10:18:14 2021", 1_623_233_894.0),
        ("09 June 2021 10:18:14", 1_623_233_894.0),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
        ("Fri, 31 Dec 1999 23:59:59 GMT", 946_684_799.0),
    ])
    func cookieDates(text: String, seconds: Double) {
        #expect(CookieDate.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: ["", "tomorrow", "Wed, 32 Jun 2021 10:18:14 GMT", "Wed, 31 Jun 2021 10:18:14 GMT",
                      "Wed, 09 Jun 1600 10:18:14 GMT", "Wed, 09 Jun 2021 24:00:00 GMT", "Wed, 09 Foo 2021 10:18:14"])
    func invalidCookieDatesAreIgnored(text: String) throws {
        #expect(CookieDate.parse(text) == nil)
        #expect(try parse("a=1; Expires=\(text)").expires == nil)
    }

    @Test func hostileLinesAreRefused() {
        #expect(SetCookie.parse("a=b\u{0}c", now: now) == .failure(.controlCharacter))
        #expect(SetCookie.parse("a=b\rSet-Cookie: evil=1", now: now) == .failure(.controlCharacter))
        #expect(SetCookie.parse("a=b\u{7F}", now: now) == .failure(.controlCharacter))
        #expect(SetCookie.parse("novalue", now: now) == .failure(.noEquals))
        #expect(SetCookie.parse("=value", now: now) == .failure(.emptyName))
        #expect(SetCookie.parse("a=" + String(repeating: "x", count: 4096), now: now) == .failure(.tooLong))
        #expect((try? SetCookie.parse("a=" + String(repeating: "x", count: 4095), now: now).get()) != nil)
    }

    @Test func overLongAttributeValuesAreIgnored() throws {
        let cookie = try parse("a=1; Path=/" + String(repeating: "p", count: 1100) + "; Domain=" + String(repeating: "d", count: 1100))
        #expect(cookie.path == nil)
        #expect(cookie.domain == nil)
    }

    @Test func sameSiteValues() throws {
        #expect(try parse("a=1; SameSite=Strict").sameSite == .strict)
        #expect(try parse("a=1; samesite=NONE").sameSite == CookieJar.Cookie.SameSite.none)
        #expect(try parse("a=1; SameSite=bogus").sameSite == nil)
    }
}
