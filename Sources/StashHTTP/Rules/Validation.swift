import Foundation
import HTTPTypes

/// Validation (RFC 9111 §4.3): the conditional request a cache sends, how a `304 Not
/// Modified` freshens the stored response, and how a cache answers its clients' own
/// conditional requests.
enum Validation {
    static let conditionalFields: [HTTPField.Name] = [.ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .ifRange]

    /// `request` made conditional on `stored`'s validators, or `nil` when it has none.
    static func conditionalRequest(_ request: HTTPRequest, for stored: StoredResponse) -> HTTPRequest? {
        let entityTag = stored.entityTag
        let lastModified = stored.headerFields[.lastModified]
        guard entityTag != nil || lastModified != nil else { return nil }
        var conditional = request
        conditional.method = .get
        conditional.headerFields[.ifNoneMatch] = nil
        conditional.headerFields[.ifModifiedSince] = nil
        if let entityTag { conditional.headerFields[.ifNoneMatch] = entityTag.fieldValue }
        if let lastModified { conditional.headerFields[.ifModifiedSince] = lastModified }
        return conditional
    }

    /// Whether a `304` with `fields` is about `stored` (RFC 9111 §4.3.4): a strong validator
    /// in the 304 must match the stored one.
    static func notModified(_ fields: HTTPFields, describes stored: StoredResponse) -> Bool {
        if let tag = fields[.eTag].flatMap(EntityTag.init) {
            guard let storedTag = stored.entityTag else { return false }
            return tag.isWeak ? tag.weakMatches(storedTag) : tag.strongMatches(storedTag)
        }
        if let modified = fields[.lastModified], let storedModified = stored.headerFields[.lastModified] {
            return HTTPDate.parse(modified) == HTTPDate.parse(storedModified)
        }
        return true
    }

    /// `stored` freshened by a 304 (or HEAD) response's `fields` (RFC 9111 §3.2): every
    /// field it carries replaces the stored ones of that name, except those a cache never
    /// stores. The age starts over from the new exchange.
    static func freshen(
        _ stored: StoredResponse, with fields: HTTPFields, requestTime: Date, responseTime: Date, mode: HTTPCacheMode
    ) -> StoredResponse {
        var updated = stored
        let excluded = StorageRules.excludedNames(fields, mode: mode)
        let replacing = Set(fields.map(\.name).filter { !excluded.contains($0.canonicalName) })
        for name in replacing { updated.headerFields[values: name] = fields[values: name] }
        // The age starts over from this exchange: an `Age` or `Date` the 304 lacks must not
        // carry the old response's age forward.
        if fields[.age] == nil { updated.headerFields[.age] = nil }
        if fields[.date] == nil { updated.headerFields[.date] = HTTPDate.format(responseTime) }
        let newExclusions = StorageRules.excludedNames(updated.headerFields, mode: mode)
        updated.headerFields = HTTPFields(updated.headerFields.filter { !newExclusions.contains($0.name.canonicalName) })
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// Whether the client's own `If-None-Match` / `If-Modified-Since` is satisfied by
    /// `stored`, so the cache answers `304` (RFC 9111 §4.3.2). `If-None-Match` takes
    /// precedence and uses the weak comparison.
    static func clientConditionMatches(_ request: HTTPRequest, stored: StoredResponse) -> Bool {
        let noneMatch = request.headerFields[values: .ifNoneMatch]
        if !noneMatch.isEmpty {
            guard let tags = EntityTag.list(noneMatch) else { return true }
            guard let storedTag = stored.entityTag else { return false }
            return tags.contains { $0.weakMatches(storedTag) }
        }
        guard let since = request.headerFields[.ifModifiedSince].flatMap(HTTPDate.parse) else { return false }
        // RFC 9111 §4.3.2: Last-Modified, else Date, else when the response was received.
        return (stored.lastModified ?? stored.date ?? stored.responseTime) <= since
    }

    /// The fields of a `304` generated from `stored` (RFC 9110 §15.4.5).
    static func notModifiedResponse(from stored: StoredResponse, age: TimeInterval) -> HTTPResponse {
        let kept: [HTTPField.Name] = [.cacheControl, .contentLocation, .date, .eTag, .expires, .vary, .lastModified]
        var fields = HTTPFields()
        for name in kept { fields[values: name] = stored.headerFields[values: name] }
        fields[.age] = StoredResponse.ageField(age)
        return HTTPResponse(status: .notModified, headerFields: fields)
    }
}
