import Foundation
import Logging
import HTTPTypes
import StashCore
import StashTestSupport
@testable import StashHTTP
import Testing

/// RFC 6265 sections 5.3 and 5.4: which cookies a jar stores and which it sends.
struct CookieJarTests {
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))

    func jar(countLimitPerDomain: Int = 180, countLimit: Int = 3000) -> CookieJar {
        var configuration = CookieJar.Configuration()
        configuration.clock = clock
        configuration.publicSuffixes = .builtIn
        configuration.countLimitPerDomain = countLimitPerDomain
        configuration.countLimit = countLimit
        return CookieJar(inMemory: configuration)
    }

    func url(_ string: String) -> URL { URL(string: string)! }

    func header(_ jar: CookieJar, _ string: String) -> String? {
        jar.cookieHeader(for: HTTPRequest(url: url(string)))
    }

    @Test func hostOnlyCookiesStayOnTheirHost() throws {
        let jar = jar()
        let cookie = try #require(try jar.setCookie("a=1", for: url("https://www.example.com/")))
        #expect(cookie.isHostOnly && cookie.domain == "www.example.com")
        #expect(header(jar, "https://www.example.com/") == "a=1")
        #expect(header(jar, "https://sub.www.example.com/") == nil)
        #expect(header(jar, "https://example.com/") == nil)
    }

    @Test func domainCookiesReachSubdomains() throws {
        let jar = jar()
        try jar.setCookie("a=1; Domain=example.com", for: url("https://www.example.com/"))
        #expect(header(jar, "https://example.com/") == "a=1")
        #expect(header(jar, "https://deep.sub.example.com/") == "a=1")
        #expect(header(jar, "https://badexample.com/") == nil)
    }

    @Test func foreignDomainsAreRefused() throws {
        let jar = jar()
        expectCookieError(.invalidCookie) { try jar.setCookie("a=1; Domain=other.com", for: url("https://www.example.com/")) }
        expectCookieError(.invalidCookie) { try jar.setCookie("a=1; Domain=www.example.com", for: url("https://example.com/")) }
        expectCookieError(.invalidCookie) { try jar.setCookie("a=1; Domain=0.0.1", for: url("http://127.0.0.1/")) }
        #expect(jar.count == 0)
    }

    @Test func publicSuffixesAreRefused() throws {
        let jar = jar()
        expectCookieError(.invalidCookie) { try jar.setCookie("a=1; Domain=com", for: url("https://example.com/")) }
        expectCookieError(.invalidCookie) { try jar.setCookie("a=1; Domain=co.uk", for: url("https://bbc.co.uk/")) }
        expectCookieError(.invalidCookie) { try jar.setCookie("a=1; Domain=github.io", for: url("https://me.github.io/")) }
        // A public suffix that is the host itself becomes a host-only cookie (RFC 6265 5.3 step 5).
        let own = try #require(try jar.setCookie("a=1; Domain=github.io", for: url("https://github.io/")))
        #expect(own.isHostOnly && own.domain == "github.io")
        #expect(header(jar, "https://me.github.io/") == nil)
        expectCookieError(.invalidCookie) {
            try jar.insert(CookieJar.Cookie(name: "a", value: "1", domain: ".co.uk"))
        }
    }

    @Test func unicodeAndPunycodeDomainsMatchEachOther() throws {
        let jar = jar()
        try jar.setCookie("a=1; Domain=Bücher.example", for: url("https://www.xn--bcher-kva.example/"))
        #expect(jar.cookies().first?.domain == "xn--bcher-kva.example")
        let request = HTTPRequest(method: .get, scheme: "https", authority: "shop.bu\u{0308}cher.example", path: "/")
        #expect(jar.cookieHeader(for: request) == "a=1")
        expectCookieError(.invalidHost) { try jar.setCookie("a=1", for: url("https://a%00b.example/")) }
    }

    @Test func unicodeURLsFromFoundationMatchPunycodeRequests() throws {
        let jar = jar()
        let unicode = try #require(URL(string: "https://www.bücher.example/"))
        let stored = try #require(try jar.setCookie("a=1; Domain=bücher.example", for: unicode))
        #expect(stored.domain == "xn--bcher-kva.example")
        #expect(try jar.cookies(for: URL(string: "https://shop.xn--bcher-kva.example/")!).map(\.name) == ["a"])
    }

    @Test func secureCookiesNeedASecureOrigin() throws {
        let jar = jar()
        expectCookieError(.invalidCookie) { try jar.setCookie("s=1; Secure", for: url("http://example.com/")) }
        try jar.setCookie("s=1; Secure", for: url("https://example.com/"))
        #expect(header(jar, "https://example.com/") == "s=1")
        #expect(header(jar, "http://example.com/") == nil)
        // An insecure origin may not replace it.
        expectCookieError(.invalidCookie) { try jar.setCookie("s=2", for: url("http://example.com/")) }
        #expect(header(jar, "https://example.com/") == "s=1")
        // Loopback counts as secure, as in browsers and curl.
        try jar.setCookie("l=1; Secure", for: url("http://127.0.0.1:8080/"))
        #expect(header(jar, "http://127.0.0.1:9090/") == "l=1")
    }

    @Test func namePrefixes() throws {
        let jar = jar()
        expectCookieError(.invalidCookie) { try jar.setCookie("__Secure-a=1", for: url("https://example.com/")) }
        expectCookieError(.invalidCookie) { try jar.setCookie("__Host-a=1; Secure; Domain=example.com", for: url("https://example.com/")) }
        expectCookieError(.invalidCookie) { try jar.setCookie("__Host-a=1; Secure; Path=/x", for: url("https://example.com/")) }
        try jar.setCookie("__Host-a=1; Secure; Path=/", for: url("https://example.com/"))
        try jar.setCookie("__Secure-b=2; Secure; Domain=example.com", for: url("https://example.com/"))
        #expect(jar.count == 2)
    }

    @Test func attributesAreKept() throws {
        let jar = jar()
        let cookie = try #require(try jar.setCookie("a=1; HttpOnly; SameSite=Strict; Max-Age=60; Path=/p", for: url("https://example.com/")))
        #expect(cookie.isHTTPOnly)
        #expect(cookie.sameSite == .strict)
        #expect(cookie.expires == clock.now.addingTimeInterval(60))
        #expect(cookie.path == "/p")
    }

    @Test func mostSpecificPathFirstThenOldestFirst() throws {
        let jar = jar()
        try jar.setCookie("root=1; Path=/", for: url("https://example.com/"))
        clock.advance(by: 1)
        try jar.setCookie("deep=1; Path=/a/b", for: url("https://example.com/"))
        clock.advance(by: 1)
        try jar.setCookie("mid=1; Path=/a", for: url("https://example.com/"))
        clock.advance(by: 1)
        try jar.setCookie("root2=1; Path=/", for: url("https://example.com/"))
        #expect(header(jar, "https://example.com/a/b/c") == "deep=1; mid=1; root=1; root2=1")
        #expect(header(jar, "https://example.com/a") == "mid=1; root=1; root2=1")
        #expect(header(jar, "https://example.com/ab") == "root=1; root2=1")
        // The default path is the request's folder.
        try jar.setCookie("folder=1", for: url("https://example.com/shop/cart?x=1"))
        #expect(header(jar, "https://example.com/shop/item") == "folder=1; root=1; root2=1")
    }

    @Test func replacingKeepsTheCreationTimeAndExpiringDeletes() throws {
        let jar = jar()
        let first = try #require(try jar.setCookie("a=1; Max-Age=100", for: url("https://example.com/")))
        clock.advance(by: 10)
        let second = try #require(try jar.setCookie("a=2; Max-Age=100", for: url("https://example.com/")))
        #expect(second.created == first.created)
        #expect(jar.count == 1)
        #expect(header(jar, "https://example.com/") == "a=2")
        #expect(try jar.setCookie("a=gone; Max-Age=0", for: url("https://example.com/")) == nil)
        #expect(jar.count == 0)
        try jar.setCookie("b=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT", for: url("https://example.com/"))
        try jar.setCookie("b=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT", for: url("https://example.com/"))
        #expect(jar.count == 0)
    }

    @Test func cookiesExpireWithTheClock() throws {
        let jar = jar()
        try jar.setCookie("a=1; Max-Age=60", for: url("https://example.com/"))
        #expect(header(jar, "https://example.com/") == "a=1")
        clock.advance(by: 61)
        #expect(header(jar, "https://example.com/") == nil)
        #expect(jar.count == 0)
    }

    @Test func limitsPerDomainAndInTotalEvictTheLeastRecentlyUsed() throws {
        let jar = jar(countLimitPerDomain: 3, countLimit: 5)
        for index in 0..<3 {
            try jar.setCookie("c\(index)=1", for: url("https://www.example.com/"))
            clock.advance(by: 1)
        }
        _ = header(jar, "https://www.example.com/")          // all three used now...
        clock.advance(by: 1)
        try jar.setCookie("c1=1", for: url("https://www.example.com/")) // ...c1 again later
        clock.advance(by: 1)
        // A fourth for the same registrable domain (another subdomain) evicts the least recently used.
        try jar.setCookie("d=1; Domain=example.com", for: url("https://api.example.com/"))
        let names = Set(jar.cookies().map(\.name))
        #expect(names.count == 3)
        #expect(names.contains("d") && names.contains("c1"))
        for index in 0..<4 {
            try jar.setCookie("o\(index)=1", for: url("https://other\(index).test/"))
            clock.advance(by: 1)
        }
        #expect(jar.count == 5)
        #expect(Set(jar.cookies().map(\.name)).contains("o3"))
    }

    @Test func ipAddressesAreTheirOwnDomainForLimits() throws {
        let jar = jar(countLimitPerDomain: 1, countLimit: 10)
        try jar.setCookie("a=1", for: url("http://10.0.0.1/"))
        try jar.setCookie("b=1", for: url("http://192.168.0.1/"))
        try jar.setCookie("c=1", for: url("http://[::1]:8080/"))
        #expect(jar.count == 3)
        try jar.setCookie("d=1", for: url("http://10.0.0.1/"))
        #expect(jar.cookies().map(\.name).sorted() == ["b", "c", "d"])
    }

    @Test func responsesStoreEverySetCookieAndIgnoreTheBadOnes() {
        let jar = jar()
        var response = HTTPResponse(status: .ok)
        response.headerFields.append(HTTPField(name: .setCookie, value: "good=1"))
        response.headerFields.append(HTTPField(name: .setCookie, value: "bad=1; Domain=evil.com"))
        response.headerFields.append(HTTPField(name: .setCookie, value: "noequals"))
        response.headerFields.append(HTTPField(name: .setCookie, value: "also=2; Path=/"))
        jar.setCookies(from: response, for: HTTPRequest(url: url("https://example.com/x")))
        #expect(jar.cookies().map(\.name).sorted() == ["also", "good"])
    }

    @Test func ignoredCookiesGoToTheConfiguredLoggerAtDebugLevel() {
        let log = LogMessages()
        var configuration = CookieJar.Configuration()
        configuration.publicSuffixes = .builtIn
        configuration.logger = log.logger
        let jar = CookieJar(inMemory: configuration)
        var response = HTTPResponse(status: .ok)
        response.headerFields.append(HTTPField(name: .setCookie, value: "bad=1; Domain=evil.com"))
        jar.setCookies(from: response, for: HTTPRequest(url: url("https://example.com/x")))
        #expect(log.all.count == 1 && log.all.allSatisfy { $0.level == .debug && $0.message.hasPrefix("CookieJar: Set-Cookie ignored") }, "\(log.all.map(\.message))")
    }

    @Test func existingCookieHeadersAreKept() throws {
        let jar = jar()
        try jar.setCookie("a=1", for: url("https://example.com/"))
        var request = HTTPRequest(url: url("https://example.com/"))
        request.headerFields[.cookie] = "mine=0"
        #expect(jar.addingCookies(to: request).headerFields[.cookie] == "mine=0; a=1")
    }

    @Test func hostileInsertsAreRefused() {
        let jar = jar()
        expectCookieError(.invalidCookie) { try jar.insert(CookieJar.Cookie(name: "", value: "1", domain: "example.com")) }
        expectCookieError(.invalidCookie) { try jar.insert(CookieJar.Cookie(name: "a\u{0}", value: "1", domain: "example.com")) }
        expectCookieError(.invalidCookie) { try jar.insert(CookieJar.Cookie(name: "a", value: "1\n2", domain: "example.com")) }
        expectCookieError(.invalidCookie) { try jar.insert(CookieJar.Cookie(name: "a", value: "1;b=2", domain: "example.com")) }
        expectCookieError(.invalidCookie) { try jar.insert(CookieJar.Cookie(name: "a", value: String(repeating: "v", count: 5000), domain: "example.com")) }
        expectCookieError(.invalidHost) { try jar.insert(CookieJar.Cookie(name: "a", value: "1", domain: "exa mple.com")) }
        #expect(jar.count == 0)
    }

    @Test func deleting() throws {
        let jar = jar()
        try jar.setCookie("a=1; Domain=example.com", for: url("https://example.com/"))
        try jar.setCookie("b=1", for: url("https://www.example.com/"))
        try jar.setCookie("c=1", for: url("https://other.test/"))
        #expect(try jar.delete(domain: "example.com") == 1)
        #expect(try jar.delete(domain: "example.com", includingSubdomains: true) == 1)
        #expect(try jar.delete(name: "c") == 1)
        #expect(jar.count == 0)
    }
}
