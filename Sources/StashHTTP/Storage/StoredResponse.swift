import Foundation
import HTTPTypes

/// One response as the cache keeps it: what the origin sent (minus the fields a cache must
/// not store), the request fields its `Vary` selects, and when it was requested and received
/// (the two times the age calculation of RFC 9111 §4.2.3 needs).
///
/// The fields every lookup reads (`Date`, `Cache-Control` as each mode sees it, `Age`,
/// validators) are parsed once, when the fields are set, not on every hit.
struct StoredResponse: Sendable, Equatable {
    var status: Int
    var reasonPhrase: String
    var headerFields: HTTPFields {
        didSet { parsed = ParsedFields(headerFields); prepared = PreparedForm() }
    }
    var body: Data { didSet { prepared = PreparedForm() } }
    /// A server's wire form of this response (``HTTPCache/freshHit(for:)``); new when fields or body change.
    private(set) var prepared = PreparedForm()
    /// When the request that produced this response was sent.
    var requestTime: Date
    /// When the response was received.
    var responseTime: Date
    /// The `Vary`-named request fields (lowercased names) and their normalised values, `nil`
    /// when the request did not carry the field.
    var selectingFields: [String: String?]
    /// `headerFields`, parsed.
    private(set) var parsed: ParsedFields

    init(
        status: Int, reasonPhrase: String, headerFields: HTTPFields, body: Data,
        requestTime: Date, responseTime: Date, selectingFields: [String: String?]
    ) {
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.headerFields = headerFields
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.selectingFields = selectingFields
        parsed = ParsedFields(headerFields)
    }

    /// The fields of a stored response that freshness, age and validation read.
    struct ParsedFields: Sendable, Equatable {
        var date: Date?
        var lastModified: Date?
        var entityTag: EntityTag?
        /// The first `Age` member as delta-seconds, 0 when absent or invalid.
        var ageValue: TimeInterval
        var privateCacheControl: CacheControl
        var sharedCacheControl: CacheControl
        /// The fields a hit hands out before its `Age` and `Content-Length` are added: the
        /// stored ones without those two.
        var servedFields: HTTPFields

        init(_ fields: HTTPFields) {
            date = fields[.date].flatMap(HTTPDate.parse)
            lastModified = fields[.lastModified].flatMap(HTTPDate.parse)
            entityTag = fields[.eTag].flatMap(EntityTag.init)
            if let first = FieldList.members(fields[values: .age]).first, let seconds = CacheControl.deltaSeconds(first) {
                ageValue = TimeInterval(seconds)
            } else {
                ageValue = 0
            }
            privateCacheControl = CacheControl.governing(fields, mode: .private)
            sharedCacheControl = CacheControl.governing(fields, mode: .shared)
            servedFields = fields
            if fields[.age] != nil || fields[.contentLength] != nil {
                servedFields.removeAll { $0.name == .age || $0.name == .contentLength }
            }
        }
    }

    /// The directives that govern a cache in `mode` (targeted fields included, see
    /// ``CacheControl/governing(_:mode:)``).
    func cacheControl(mode: HTTPCacheMode) -> CacheControl {
        mode == .shared ? parsed.sharedCacheControl : parsed.privateCacheControl
    }

    /// The `Date` field, when present and valid.
    var date: Date? { parsed.date }

    /// The `Last-Modified` field, when present and valid.
    var lastModified: Date? { parsed.lastModified }

    /// The `ETag` field, when present and parseable.
    var entityTag: EntityTag? { parsed.entityTag }

    /// Roughly how many bytes this response occupies, for memory limits.
    var cost: Int {
        body.count + headerFields.reduce(64) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
    }

    /// `age` as an `Age` field value: whole seconds, rounded down. Dates are `Double`s of
    /// seconds since 2001, so a difference that is exactly 40 s may come out as 39.99999…;
    /// a millisecond of tolerance keeps that from reading as 39.
    static func ageField(_ age: TimeInterval) -> String {
        String(max(0, Int((age + 0.001).rounded(.down))))
    }

    /// The response the cache hands out: stored fields, a fresh `Age`, the content length.
    func response(age: TimeInterval) -> HTTPResponse {
        var fields = parsed.servedFields
        fields.reserveCapacity(fields.count + 2)
        fields.append(HTTPField(name: .age, value: Self.ageField(age)))
        fields.append(HTTPField(name: .contentLength, value: String(body.count)))
        return HTTPResponse(status: HTTPResponse.Status(code: status, reasonPhrase: reasonPhrase), headerFields: fields)
    }
}
