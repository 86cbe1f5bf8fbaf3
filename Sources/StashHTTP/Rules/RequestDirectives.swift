import HTTPTypes

/// What a request asks of the cache (RFC 9111 §5.2.1), with `Pragma: no-cache` read as
/// `no-cache` when the request has no `Cache-Control` (§5.4).
struct RequestDirectives: Sendable {
    var noCache = false
    var noStore = false
    var onlyIfCached = false
    /// `max-age`: the oldest response the client accepts.
    var maxAge: Int?
    /// `max-stale`: how stale a response the client accepts (`Int.max` without an argument).
    var maxStale: Int?
    /// `min-fresh`: how long the response must stay fresh.
    var minFresh: Int?
    /// `stale-if-error` sent by the client (RFC 5861 §4).
    var staleIfError: Int?

    /// A request that asks nothing of the cache.
    init() {}

    init(_ fields: HTTPFields) {
        // Most requests carry neither field: one pass over the fields and nothing to parse.
        guard fields.contains(where: { $0.name == .cacheControl || $0.name == .pragma }) else { return }
        let lines = fields[values: .cacheControl]
        let directives = CacheControl(fieldValues: lines)
        noCache = directives.contains("no-cache")
        if lines.isEmpty, FieldList.members(fields[values: .pragma]).contains(where: { $0.lowercased() == "no-cache" }) {
            noCache = true
        }
        noStore = directives.contains("no-store")
        onlyIfCached = directives.contains("only-if-cached")
        maxAge = Self.seconds(directives, "max-age")
        minFresh = Self.seconds(directives, "min-fresh")
        staleIfError = Self.seconds(directives, "stale-if-error")
        if let directive = directives.first("max-stale") {
            if let argument = directive.argument {
                maxStale = CacheControl.deltaSeconds(argument) ?? 0
            } else {
                maxStale = Int.max
            }
        }
    }

    private static func seconds(_ directives: CacheControl, _ name: String) -> Int? {
        if case .seconds(let value) = directives.seconds(name) { return value }
        return nil
    }
}
