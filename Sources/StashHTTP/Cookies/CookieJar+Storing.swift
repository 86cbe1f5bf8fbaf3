public import Foundation
public import HTTPTypes
import StashCore
import Logging

/// Receiving cookies: RFC 6265 section 5.3, with the RFC 6265bis rules on `Secure` and the
/// `__Secure-` / `__Host-` name prefixes.
extension CookieJar {
    /// Stores every `Set-Cookie` of `response`, received for `request`.
    ///
    /// ```swift
    /// let (response, body) = try await transport.send(request, body: Data())
    /// jar.setCookies(from: response, for: request)
    /// ```
    ///
    /// Cookies the RFC says to ignore (malformed, for another domain, for a public suffix)
    /// are ignored and reported to ``Configuration/logger``; a failed save is reported there
    /// too and retried with the next change. ``CachingHTTPClient`` calls this for every
    /// response that comes from the network.
    public func setCookies(from response: HTTPResponse, for request: HTTPRequest) {
        let lines = response.headerFields[values: .setCookie]
        guard !lines.isEmpty, configuration.access == .readWrite else { return }
        let origin: CookieOrigin
        do { origin = try CookieOrigin(request) } catch {
            configuration.logger.debug("CookieJar: cookies of a response ignored: \(error)")
            return
        }
        let now = configuration.clock.now
        do {
            try change(required: false) { cookies in
                for line in lines {
                    do { _ = try store(line, from: origin, now: now, in: &cookies) } catch {
                        configuration.logger.debug("CookieJar: Set-Cookie ignored: \(error)")
                    }
                }
            }
        } catch {
            configuration.logger.error("CookieJar: cookies of a response not stored: \(error)")
        }
    }

    /// Stores one `Set-Cookie` value as if received from `url`.
    ///
    /// ```swift
    /// try jar.setCookie("id=a3fWa; Max-Age=2592000; Secure; HttpOnly", for: URL(string: "https://example.com/")!)
    /// ```
    ///
    /// - returns: The cookie stored, or `nil` when the line deleted a cookie (an expiry in
    ///   the past).
    /// - throws: ``StashCore/StashError/Code/invalidCookie`` for a line RFC 6265 ignores
    ///   (says why), ``StashCore/StashError/Code/invalidHost`` for a URL without a usable
    ///   host, ``/StashCore/StashError/Code/readOnly``, ``/StashCore/StashError/Code/closed``,
    ///   or the error of a failed save (then nothing changed).
    @discardableResult
    public func setCookie(_ line: String, for url: URL) throws -> Cookie? {
        let origin = try CookieOrigin(url)
        let now = configuration.clock.now
        return try change(required: true) { cookies in try store(line, from: origin, now: now, in: &cookies) }
    }

    /// Stores `cookie` as it is (from your code or another jar), replacing the cookie with
    /// the same name, domain and path.
    ///
    /// ```swift
    /// try jar.insert(CookieJar.Cookie(name: "consent", value: "yes", domain: "example.com",
    ///                       expires: Date().addingTimeInterval(86_400 * 365)))
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/invalidCookie`` for an empty name, a control
    ///   character, a name and value over 4096 bytes or a public-suffix domain that is not
    ///   host-only; ``StashCore/StashError/Code/invalidHost`` for a malformed domain.
    public func insert(_ cookie: Cookie) throws {
        let checked = try validated(cookie)
        try change(required: true) { cookies in
            guard !checked.isExpired(at: configuration.clock.now) else {
                cookies[checked.identity] = nil
                return
            }
            add(checked, to: &cookies)
        }
    }

    /// A cookie with its domain canonical, checked as a `Set-Cookie` would be.
    func validated(_ cookie: Cookie) throws -> Cookie {
        var cookie = cookie
        let refuse = { (reason: String) in StashError(.invalidCookie, reason, key: StoredKey.printable(String(cookie.name.prefix(200)))) }
        guard !cookie.name.isEmpty else { throw refuse("a cookie needs a name") }
        for text in [cookie.name, cookie.value, cookie.path] {
            for byte in text.utf8 where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
                throw refuse("control character in a cookie")
            }
        }
        guard !cookie.name.contains(";"), !cookie.name.contains("="), !cookie.value.contains(";") else {
            throw refuse("';' or '=' in a cookie name, or ';' in its value")
        }
        guard cookie.name.utf8.count + cookie.value.utf8.count <= SetCookie.maximumNameAndValue else {
            throw refuse("name and value longer than \(SetCookie.maximumNameAndValue) bytes")
        }
        guard cookie.path.hasPrefix("/"), cookie.path.utf8.count <= SetCookie.maximumAttributeValue else {
            throw refuse("a cookie path starts with '/' and is at most \(SetCookie.maximumAttributeValue) bytes")
        }
        cookie.domain = try CookieDomain.canonical(cookie.domain.hasPrefix(".") ? String(cookie.domain.dropFirst()) : cookie.domain)
        if !cookie.isHostOnly, configuration.publicSuffixes.publicSuffix(ofCanonical: cookie.domain) == cookie.domain,
           !CookieDomain.isIPAddress(cookie.domain) {
            throw refuse("'\(cookie.domain)' is a public suffix")
        }
        return cookie
    }

    /// RFC 6265 5.3 for one parsed line.
    private func store(_ line: String, from origin: CookieOrigin, now: Date, in cookies: inout [Cookie.Identity: Cookie]) throws -> Cookie? {
        let parsed: SetCookie
        switch SetCookie.parse(line, now: now) {
        case .success(let value): parsed = value
        case .failure(let refusal):
            let reason = switch refusal {
            case .controlCharacter: "control character in Set-Cookie"
            case .noEquals: "no '=' in the name-value pair"
            case .emptyName: "empty cookie name"
            case .tooLong: "name and value longer than \(SetCookie.maximumNameAndValue) bytes"
            }
            throw StashError(.invalidCookie, reason, key: StoredKey.printable(String(line.prefix(200))))
        }
        let refuse = { (reason: String) in StashError(.invalidCookie, reason, key: StoredKey.printable(String(parsed.name.prefix(200)))) }
        var domain = origin.host
        var isHostOnly = true
        if let attribute = parsed.domain {
            let canonical: String
            do { canonical = try CookieDomain.canonical(attribute) } catch { throw refuse("malformed Domain attribute") }
            let isSuffix = !CookieDomain.isIPAddress(canonical)
                && configuration.publicSuffixes.publicSuffix(ofCanonical: canonical) == canonical
            if isSuffix, canonical != origin.host {
                throw refuse("Domain '\(canonical)' is a public suffix")
            }
            if !isSuffix {
                guard CookieDomain.matches(host: origin.host, domain: canonical) else {
                    throw refuse("Domain '\(canonical)' does not cover the host '\(origin.host)'")
                }
                domain = canonical
                isHostOnly = false
            }
        }
        let path = parsed.path ?? CookieDomain.defaultPath(origin.path)
        if parsed.isSecure, !origin.isSecure { throw refuse("Secure cookie from an insecure origin") }
        let lowercasedName = parsed.name.lowercased()
        if lowercasedName.hasPrefix("__secure-"), !parsed.isSecure { throw refuse("__Secure- cookie without Secure") }
        if lowercasedName.hasPrefix("__host-"), !parsed.isSecure || !isHostOnly || path != "/" {
            throw refuse("__Host- cookie needs Secure, no Domain and Path=/")
        }
        if !origin.isSecure {
            // An insecure origin may not shadow or replace a secure cookie (RFC 6265bis 5.7).
            let shadowed = cookies.values.contains { old in
                old.isSecure && old.name == parsed.name
                    && (CookieDomain.matches(host: domain, domain: old.domain) || CookieDomain.matches(host: old.domain, domain: domain))
                    && CookieDomain.pathMatches(path, cookiePath: old.path)
            }
            if shadowed { throw refuse("would replace a Secure cookie from an insecure origin") }
        }
        var cookie = Cookie(
            name: parsed.name, value: parsed.value, domain: domain, path: path, expires: parsed.expires,
            isHostOnly: isHostOnly, isSecure: parsed.isSecure, isHTTPOnly: parsed.isHTTPOnly,
            sameSite: parsed.sameSite, created: now, lastAccessed: now
        )
        if let old = cookies[cookie.identity] {
            cookie.created = old.created
            cookies[cookie.identity] = nil
        }
        guard !cookie.isExpired(at: now) else { return nil }
        add(cookie, to: &cookies)
        return cookie
    }

    /// Adds `cookie`, then evicts past the limits: expired cookies first, then the least
    /// recently used, never the one just added.
    private func add(_ cookie: Cookie, to cookies: inout [Cookie.Identity: Cookie]) {
        cookies[cookie.identity] = cookie
        let now = configuration.clock.now
        let group = { (domain: String) in
            CookieDomain.isIPAddress(domain) ? domain : self.configuration.publicSuffixes.registrableDomain(ofCanonical: domain) ?? domain
        }
        let home = group(cookie.domain)
        let neighbours = cookies.values.filter { group($0.domain) == home }
        let perDomain = max(1, configuration.countLimitPerDomain), total = max(1, configuration.countLimit)
        if neighbours.count > perDomain {
            evict(neighbours.count - perDomain, from: neighbours, keeping: cookie.identity, now: now, in: &cookies)
        }
        if cookies.count > total {
            evict(cookies.count - total, from: Array(cookies.values), keeping: cookie.identity, now: now, in: &cookies)
        }
    }

    private func evict(_ excess: Int, from candidates: [Cookie], keeping: Cookie.Identity, now: Date, in cookies: inout [Cookie.Identity: Cookie]) {
        let order = candidates.filter { $0.identity != keeping }.sorted { a, b in
            let (aExpired, bExpired) = (a.isExpired(at: now), b.isExpired(at: now))
            if aExpired != bExpired { return aExpired }
            return a.lastAccessed < b.lastAccessed
        }
        for victim in order.prefix(excess) { cookies[victim.identity] = nil }
    }
}
