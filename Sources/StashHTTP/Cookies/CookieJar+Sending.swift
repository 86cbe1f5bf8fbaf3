public import Foundation
public import HTTPTypes
import StashCore

/// Sending cookies: RFC 6265 section 5.4.
extension CookieJar {
    /// The cookies to send to `url`, most specific path first, then oldest first.
    ///
    /// ```swift
    /// let sent = try jar.cookies(for: URL(string: "https://example.com/account")!)
    /// ```
    ///
    /// - throws: ``StashCore/StashError/Code/invalidHost`` when the URL has no usable host.
    public func cookies(for url: URL) throws -> [Cookie] {
        try matching(CookieOrigin(url))
    }

    /// The `Cookie` field value for `request`, or `nil` when no cookie applies.
    ///
    /// ```swift
    /// var request = HTTPRequest(url: URL(string: "https://example.com/")!)
    /// request.headerFields[.cookie] = jar.cookieHeader(for: request)
    /// ```
    public func cookieHeader(for request: HTTPRequest) -> String? {
        guard let origin = try? CookieOrigin(request) else { return nil }
        let cookies = matching(origin)
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// `request` with the jar's cookies in its `Cookie` field, after those it already had.
    ///
    /// ```swift
    /// let (response, body) = try await transport.send(jar.addingCookies(to: request), body: Data())
    /// ```
    public func addingCookies(to request: HTTPRequest) -> HTTPRequest {
        guard let header = cookieHeader(for: request) else { return request }
        var request = request
        if let existing = request.headerFields[.cookie], !existing.isEmpty {
            request.headerFields[.cookie] = existing + "; " + header
        } else {
            request.headerFields[.cookie] = header
        }
        return request
    }

    private func matching(_ origin: CookieOrigin) -> [Cookie] {
        let now = configuration.clock.now
        return state.withLock { state in
            var found: [Cookie] = []
            var expired: [Cookie.Identity] = []
            for (identity, cookie) in state.cookies {
                if cookie.isExpired(at: now) { expired.append(identity); continue }
                let domainMatches = cookie.isHostOnly ? origin.host == cookie.domain : CookieDomain.matches(host: origin.host, domain: cookie.domain)
                guard domainMatches, CookieDomain.pathMatches(origin.path, cookiePath: cookie.path),
                      !cookie.isSecure || origin.isSecure else { continue }
                state.cookies[identity]?.lastAccessed = now
                found.append(cookie)
            }
            // Expired cookies leave memory now and the file with the next save.
            for identity in expired { state.cookies[identity] = nil }
            if !found.isEmpty || !expired.isEmpty, configuration.access == .readWrite { state.isDirty = true }
            return found.sorted { a, b in
                if a.path.utf8.count != b.path.utf8.count { return a.path.utf8.count > b.path.utf8.count }
                if a.created != b.created { return a.created < b.created }
                return a.name < b.name  // only so that the order is stable
            }
        }
    }
}
