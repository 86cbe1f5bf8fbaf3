import Foundation
import StashCore

/// Deleting cookies.
extension CookieJar {
    /// Deletes the cookies that match every given criterion: a `domain` (and, with
    /// `includingSubdomains`, the cookies of its subdomains), a `name`, a `path`.
    ///
    /// ```swift
    /// try jar.delete(domain: "example.com", includingSubdomains: true)   // sign out everywhere
    /// try jar.delete(domain: "example.com", name: "session")
    /// ```
    ///
    /// - returns: How many cookies were deleted.
    /// - throws: ``StashCore/StashError/Code/invalidHost`` for a malformed domain,
    ///   ``/StashCore/StashError/Code/readOnly``, or the error of a failed save (then
    ///   nothing changed).
    @discardableResult
    public func delete(domain: String? = nil, includingSubdomains: Bool = false, name: String? = nil, path: String? = nil) throws -> Int {
        let domain = try domain.map { try CookieDomain.canonical($0.hasPrefix(".") ? String($0.dropFirst()) : $0) }
        return try change(required: true) { cookies in
            let doomed = cookies.values.filter { cookie in
                if let domain {
                    let covered = includingSubdomains ? CookieDomain.matches(host: cookie.domain, domain: domain) : cookie.domain == domain
                    if !covered { return false }
                }
                if let name, cookie.name != name { return false }
                if let path, cookie.path != path { return false }
                return true
            }
            for cookie in doomed { cookies[cookie.identity] = nil }
            return doomed.count
        }
    }

    /// Deletes every cookie.
    ///
    /// ```swift
    /// try jar.removeAll()
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/readOnly`` or the error of a failed save.
    public func removeAll() throws {
        try change(required: true) { $0.removeAll() }
    }

    /// Deletes the cookies that have expired and saves the jar.
    ///
    /// ```swift
    /// let removed = try jar.removeExpired()
    /// ```
    @discardableResult
    public func removeExpired() throws -> Int {
        let now = configuration.clock.now
        return try change(required: true) { cookies in
            let expired = cookies.values.filter { $0.isExpired(at: now) }
            for cookie in expired { cookies[cookie.identity] = nil }
            return expired.count
        }
    }
}
