import Foundation
import StashCore
@testable import StashHTTP
import Testing

/// Host canonicalisation (punycode), domain and path matching (RFC 6265 5.1.2 to 5.1.4).
struct CookieDomainTests {
    /// RFC 3492 section 7.1 samples and well-known labels.
    @Test(arguments: [
        ("bücher", "bcher-kva"),
        ("münchen", "mnchen-3ya"),
        ("例え", "r8jz45g"),
        ("ليهمابتكلموشعربي؟", "egbpdaj6bu4bxfgehfvwxn"),
        ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
    ])
    func punycode(label: String, encoded: String) {
        #expect(Punycode.encode(label) == encoded)
    }

    @Test func unicodeAndPunycodeFormsAreOneDomain() throws {
        let forms = ["bücher.example", "BÜCHER.EXAMPLE", "bu\u{0308}cher.example", "xn--bcher-kva.example", "XN--BCHER-KVA.example", "bücher。example"]
        for form in forms {
            #expect(try CookieDomain.canonical(form) == "xn--bcher-kva.example", "\(form)")
        }
        #expect(try CookieDomain.canonical("Example.COM.") == "example.com")
        #expect(try CookieDomain.canonical("[::1]") == "[::1]")
    }

    @Test(arguments: ["", "exa mple.com", "a\u{0}b.com", "a\tb.com", "a/b.com", "a..b", ".", "a@b.com", "x\u{200B}y.com",
                      String(repeating: "a", count: 64) + ".com", Array(repeating: "abcdefghi", count: 26).joined(separator: "."), "[zz]"])
    func hostileHostsAreRefused(host: String) {
        expectCookieError(.invalidHost) { try CookieDomain.canonical(host) }
    }

    @Test func domainMatching() {
        #expect(CookieDomain.matches(host: "example.com", domain: "example.com"))
        #expect(CookieDomain.matches(host: "www.example.com", domain: "example.com"))
        #expect(!CookieDomain.matches(host: "badexample.com", domain: "example.com"))
        #expect(!CookieDomain.matches(host: "example.com", domain: "www.example.com"))
        #expect(!CookieDomain.matches(host: "1.2.3.4", domain: "2.3.4"))
        #expect(CookieDomain.matches(host: "1.2.3.4", domain: "1.2.3.4"))
    }

    @Test func pathMatchingAndDefaultPath() {
        #expect(CookieDomain.pathMatches("/docs", cookiePath: "/docs"))
        #expect(CookieDomain.pathMatches("/docs/web", cookiePath: "/docs"))
        #expect(CookieDomain.pathMatches("/docs/web", cookiePath: "/docs/"))
        #expect(!CookieDomain.pathMatches("/docsets", cookiePath: "/docs"))
        #expect(!CookieDomain.pathMatches("/", cookiePath: "/docs"))
        #expect(CookieDomain.defaultPath("/account/login") == "/account")
        #expect(CookieDomain.defaultPath("/login") == "/")
        #expect(CookieDomain.defaultPath("/a/b/?q=/x/y") == "/a/b")
        #expect(CookieDomain.defaultPath("") == "/")
        #expect(CookieDomain.requestPath("/a/b?c#d") == "/a/b")
    }

    @Test func secureOrigins() {
        #expect(CookieDomain.isSecure(scheme: "https", host: "example.com"))
        #expect(!CookieDomain.isSecure(scheme: "http", host: "example.com"))
        #expect(CookieDomain.isSecure(scheme: "http", host: "127.0.0.1"))
        #expect(CookieDomain.isSecure(scheme: "http", host: "localhost"))
        #expect(!CookieDomain.isSecure(scheme: "http", host: "127.example.com"))
    }

    @Test func authorities() {
        #expect(CookieOrigin.host(ofAuthority: "example.com:8080") == "example.com")
        #expect(CookieOrigin.host(ofAuthority: "user:pw@example.com") == "example.com")
        #expect(CookieOrigin.host(ofAuthority: "[::1]:80") == "[::1]")
    }
}
