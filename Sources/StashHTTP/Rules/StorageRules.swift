import HTTPTypes

/// Whether a response may be stored (RFC 9111 §3) and which of its fields may not.
enum StorageRules {
    /// The final status codes RFC 9110 defines, whose caching requirements this cache follows.
    static let understoodStatuses: Set<Int> = Set(200...205)
        .union([300, 301, 302, 303, 307, 308])
        .union(400...417).union([421, 422, 426])
        .union(500...505)

    /// Whether `response` to `request` may be stored by a cache in `mode`.
    ///
    /// In shared mode a response carrying `Set-Cookie` is not stored (as nginx and Varnish
    /// do by default: the cookie is one client's) unless `storesResponsesThatSetCookies`, or
    /// the origin named `Set-Cookie` in `no-cache="…"` or `private="…"`, saying that the rest
    /// may be shared; the stored copy then drops the field (``excludedNames(_:mode:)``).
    static func canStore(
        request: HTTPRequest, response: HTTPResponse, mode: HTTPCacheMode, storesResponsesThatSetCookies: Bool
    ) -> Bool {
        guard request.method == .get else { return false }
        let status = response.status.code
        guard (200..<600).contains(status), status != 206, status != 304 else { return false }
        let requestDirectives = CacheControl(fieldValues: request.headerFields[values: .cacheControl])
        let directives = CacheControl.governing(response.headerFields, mode: mode)
        if requestDirectives.contains("no-store") { return false }
        if directives.contains("must-understand") {
            // RFC 9111 §5.2.2.3: store only status codes whose caching rules this cache knows,
            // and then `no-store` (sent alongside for older caches) no longer applies.
            guard understoodStatuses.contains(status) else { return false }
        } else if directives.contains("no-store") {
            return false
        }
        if mode == .shared {
            if directives.isUnqualified("private") { return false }
            if !storesResponsesThatSetCookies, response.headerFields[.setCookie] != nil,
               !(directives.listedFieldNames("no-cache").contains("set-cookie") || directives.listedFieldNames("private").contains("set-cookie")) {
                return false
            }
            if request.headerFields[.authorization] != nil,
               !(directives.contains("public") || directives.contains("s-maxage") || directives.contains("must-revalidate")) {
                return false
            }
        }
        if FieldList.members(response.headerFields[values: .vary]).contains("*") { return false }
        return directives.contains("public")
            || (mode == .private && directives.contains("private"))
            || response.headerFields[.expires] != nil
            || directives.contains("max-age")
            || (mode == .shared && directives.contains("s-maxage"))
            || StoredResponse.heuristicallyCacheableStatuses.contains(status)
    }

    /// The fields of `fields` a cache keeps: without hop-by-hop fields, those named by
    /// `Connection`, `Content-Length` (recomputed when served), and those named by
    /// `no-cache="…"` (and, in a shared cache, `private="…"` and `Set-Cookie`, which only
    /// the client whose request fetched the response gets).
    static func storableFields(_ fields: HTTPFields, mode: HTTPCacheMode) -> HTTPFields {
        let excluded = excludedNames(fields, mode: mode)
        return HTTPFields(fields.filter { !excluded.contains($0.name.canonicalName) })
    }

    /// The lowercased names `storableFields` drops.
    static func excludedNames(_ fields: HTTPFields, mode: HTTPCacheMode) -> Set<String> {
        var excluded = HopByHop.names(in: fields)
        excluded.insert("content-length")
        let directives = CacheControl.governing(fields, mode: mode)
        excluded.formUnion(directives.listedFieldNames("no-cache"))
        if mode == .shared {
            excluded.formUnion(directives.listedFieldNames("private"))
            excluded.insert("set-cookie")
        }
        return excluded
    }
}
