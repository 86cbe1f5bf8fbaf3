public import Foundation

extension CookieJar {
    /// One HTTP cookie as a ``CookieJar`` stores it (RFC 6265 section 5.3). Nested in the jar
    /// so that it never needs qualifying beside Hummingbird's or AsyncHTTPClient's `Cookie`.
    ///
    /// Cookies come from `Set-Cookie` fields (``CookieJar/setCookies(from:for:)``), from a
    /// `cookies.txt` file (``CookieJar/importCookiesTxt(_:)``) or from your code:
    ///
    /// ```swift
    /// let cookie = CookieJar.Cookie(name: "session", value: "abc123", domain: "example.com",
    ///                               expires: Date().addingTimeInterval(3600), isSecure: true)
    /// try jar.insert(cookie)
    /// ```
    ///
    /// Domains are kept in their ASCII form: lowercase, internationalised labels in punycode
    /// (`bücher.example` is stored as `xn--bcher-kva.example`).
    public struct Cookie: Sendable, Hashable, CustomStringConvertible {
        /// The SameSite attribute a server gave the cookie (RFC 6265bis). Stored and reported;
        /// an app's own requests are all same-site, so the jar sends cookies whatever it says.
        public enum SameSite: String, Sendable, Hashable, CaseIterable {
            /// Sent only with same-site requests.
            case strict = "Strict"
            /// Sent with same-site requests and top-level navigations.
            case lax = "Lax"
            /// Sent with cross-site requests too.
            case none = "None"
        }

        /// The cookie's name.
        public var name: String
        /// The cookie's value, exactly as the server sent it (quotes included).
        public var value: String
        /// The domain, ASCII lowercase, without a leading dot.
        public var domain: String
        /// The path; the cookie is sent to this path and the paths below it.
        public var path: String
        /// When the cookie expires; `nil` for a session cookie.
        public var expires: Date?
        /// Whether the cookie goes only to `domain` itself (no `Domain` attribute was given)
        /// rather than to its subdomains too.
        public var isHostOnly: Bool
        /// Whether the cookie is sent only over secure connections (`https`, or loopback).
        public var isSecure: Bool
        /// Whether scripts may not see the cookie. The jar keeps and exports the flag.
        public var isHTTPOnly: Bool
        /// The SameSite attribute, when the server sent a recognised one.
        public var sameSite: SameSite?
        /// When the cookie was first stored (kept when a server replaces its value).
        public var created: Date
        /// When the cookie was last sent or stored.
        public var lastAccessed: Date

        /// Creates a cookie.
        ///
        /// ```swift
        /// let cookie = CookieJar.Cookie(name: "theme", value: "dark", domain: "example.com")
        /// ```
        public init(
            name: String, value: String, domain: String, path: String = "/", expires: Date? = nil,
            isHostOnly: Bool = false, isSecure: Bool = false, isHTTPOnly: Bool = false,
            sameSite: SameSite? = nil, created: Date = Date(), lastAccessed: Date? = nil
        ) {
            self.name = name
            self.value = value
            self.domain = domain
            self.path = path
            self.expires = expires
            self.isHostOnly = isHostOnly
            self.isSecure = isSecure
            self.isHTTPOnly = isHTTPOnly
            self.sameSite = sameSite
            self.created = created
            self.lastAccessed = lastAccessed ?? created
        }

        /// Whether the cookie lasts only as long as the session (no `Expires` nor `Max-Age`).
        ///
        /// ```swift
        /// let kept = jar.cookies().filter { !$0.isSession }
        /// ```
        public var isSession: Bool { expires == nil }

        /// Whether the cookie has expired at `date`.
        ///
        /// ```swift
        /// if cookie.isExpired(at: Date().addingTimeInterval(3600)) { print("gone within the hour") }
        /// ```
        public func isExpired(at date: Date) -> Bool {
            if let expires { return expires <= date }
            return false
        }

        /// What identifies a cookie in a jar: a second cookie with the same name, domain and
        /// path replaces the first.
        struct Identity: Hashable, Sendable {
            var name: String
            var domain: String
            var path: String
        }

        var identity: Identity { Identity(name: name, domain: domain, path: path) }

        /// `name=value; Domain=…; Path=…; …`, like a `Set-Cookie` line.
        public var description: String {
            var parts = ["\(name)=\(value)", isHostOnly ? "Domain=\(domain) (host-only)" : "Domain=\(domain)", "Path=\(path)"]
            if let expires { parts.append("Expires=\(HTTPDate.format(expires))") }
            if isSecure { parts.append("Secure") }
            if isHTTPOnly { parts.append("HttpOnly") }
            if let sameSite { parts.append("SameSite=\(sameSite.rawValue)") }
            return parts.joined(separator: "; ")
        }
    }
}
