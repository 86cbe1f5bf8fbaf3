import Foundation
import HTTPTypes

/// One response as the cache keeps it: what the origin sent (minus the fields a cache must
/// not store), the request fields its `Vary` selects, and when it was requested and received
/// (the two times the age calculation of RFC 9111 §4.2.3 needs).
struct StoredResponse: Sendable, Equatable {
    var status: Int
    var reasonPhrase: String
    var headerFields: HTTPFields
    var body: Data
    /// When the request that produced this response was sent.
    var requestTime: Date
    /// When the response was received.
    var responseTime: Date
    /// The `Vary`-named request fields (lowercased names) and their normalised values, `nil`
    /// when the request did not carry the field.
    var selectingFields: [String: String?]

    /// The directives that govern a cache in `mode` (targeted fields included, see
    /// ``CacheControl/governing(_:mode:)``).
    func cacheControl(mode: HTTPCacheMode) -> CacheControl { CacheControl.governing(headerFields, mode: mode) }

    /// The `Date` field, when present and valid.
    var date: Date? { headerFields[.date].flatMap(HTTPDate.parse) }

    /// The `Last-Modified` field, when present and valid.
    var lastModified: Date? { headerFields[.lastModified].flatMap(HTTPDate.parse) }

    /// The `ETag` field, when present and parseable.
    var entityTag: EntityTag? { headerFields[.eTag].flatMap(EntityTag.init) }

    /// Roughly how many bytes this response occupies, for memory limits.
    var cost: Int {
        body.count + headerFields.reduce(64) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The response the cache hands out: stored fields, a fresh `Age`, the content length.
    func response(age: TimeInterval) -> HTTPResponse {
        var fields = headerFields
        fields[.age] = String(max(0, Int(age.rounded(.down))))
        fields[.contentLength] = String(body.count)
        return HTTPResponse(status: HTTPResponse.Status(code: status, reasonPhrase: reasonPhrase), headerFields: fields)
    }
}
