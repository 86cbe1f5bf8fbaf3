package import Foundation
import HTTPTypes
import StashCore

/// Entry points for fuzzing the parsers of untrusted bytes in StashHTTP: each takes any bytes,
/// parses them the way the cache does, touches every result, and returns how many items it
/// found. None traps on any input (a libFuzzer target calls them with whatever it mutates).
///
/// ```swift
/// @_cdecl("LLVMFuzzerTestOneInput")
/// func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
///     _ = HTTPFuzzing.cacheControl(UnsafeRawBufferPointer(start: data, count: count))
///     return 0
/// }
/// ```
package enum HTTPFuzzing {
    /// Decodes `bytes` as a stored response record (the disk format of ``HTTPCache``); when
    /// they decode, encodes the result again and checks that it decodes the same, then
    /// serves each variant as a hit would (``serve(_:)``).
    ///
    /// - returns: The number of variants, or -1 when the bytes are not a record.
    @discardableResult
    package static func storedResponse(_ bytes: UnsafeRawBufferPointer) -> Int {
        var reader = BinaryReader(bytes)
        guard let (key, variants) = try? StoredResponseCoding.decode(&reader) else { return -1 }
        let again = try? StoredResponseCoding.decode(StoredResponseCoding.encode(key: key, variants: variants))
        guard let again, again.key == key, again.variants == variants else { return -2 }
        var touched = 0
        for variant in variants {
            touched &+= variant.cost
            touched &+= serve(variant)
            _ = variant.date
            _ = variant.entityTag
        }
        return variants.count + (touched == Int.min ? 1 : 0)
    }

    /// The caches ``serve(_:)`` answers with, one per mode (in memory; nothing is stored
    /// in them).
    static let servingCaches = [HTTPCacheMode.private, .shared].compactMap { try? HTTPCache(memoryCapacity: 0, mode: $0) }

    /// Everything a lookup does with a stored response, at the moments it was requested and
    /// received and a century later: its age, the reuse decision for a plain request and for one with
    /// `Cache-Control` directives, the answer to a plain `GET` and `HEAD`, to a conditional
    /// and a `Range` request, the `304` a client's condition gets, the stale-if-error
    /// decision, and the conditional request a revalidation sends and the freshened response
    /// its `304` makes.
    ///
    /// - returns: A number made from the answers, so that none is optimized away.
    static func serve(_ stored: StoredResponse) -> Int {
        var touched = 0
        let plain = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/fuzz")
        var demanding = plain
        demanding.headerFields[.cacheControl] = "max-age=5, min-fresh=5, max-stale=5, stale-if-error=5"
        demanding.headerFields[.ifNoneMatch] = stored.headerFields[.eTag] ?? "\"x\""
        var ranged = plain
        ranged.headerFields[.range] = "bytes=1-"
        ranged.headerFields[.ifRange] = stored.headerFields[.lastModified] ?? stored.headerFields[.eTag] ?? "\"x\""
        var suffix = plain
        suffix.headerFields[.range] = "bytes=-3"
        let nows = [stored.requestTime, stored.responseTime, stored.responseTime.addingTimeInterval(100 * 365 * 86_400)]
        for cache in servingCaches {
            for now in nows {
                touched &+= StoredResponse.ageSeconds(stored.currentAge(now: now))
                for request in [plain, demanding] {
                    let directives = RequestDirectives(request.headerFields)
                    touched &+= Reuse.decide(stored, fields: request.headerFields, directives: directives, mode: cache.mode, now: now) == .fresh ? 1 : 0
                    touched &+= Reuse.mayServeStaleOnError(stored, directives: directives, mode: cache.mode, now: now, disconnected: false) ? 1 : 0
                }
                for method in [HTTPRequest.Method.get, .head] {
                    touched &+= cache.serve(stored, toPlain: method, now: now).0.headerFields.count
                }
                for request in [demanding, ranged, suffix] {
                    touched &+= cache.serve(stored, to: request, now: now).0.status.code
                }
            }
            if let conditional = Validation.conditionalRequest(plain, for: stored) {
                touched &+= conditional.headerFields.count
                let freshened = Validation.freshen(
                    stored, with: stored.headerFields, requestTime: stored.requestTime, responseTime: stored.responseTime, mode: cache.mode
                )
                touched &+= freshened.response(age: freshened.currentAge(now: freshened.responseTime)).headerFields.count
            }
        }
        return touched
    }

    /// Parses `bytes` as one `Cache-Control` field line and reads every directive's argument
    /// as delta-seconds and as a field-name list.
    @discardableResult
    package static func cacheControl(_ bytes: UnsafeRawBufferPointer) -> Int {
        let directives = CacheControl(fieldValues: [String(decoding: bytes, as: UTF8.self)])
        for directive in directives.directives {
            _ = directives.seconds(directive.name)
            _ = directives.listedFieldNames(directive.name)
            _ = directives.isUnqualified(directive.name)
        }
        return directives.directives.count
    }

    /// Parses `bytes` as an HTTP date in any of the three formats; a parsed date is formatted
    /// again.
    ///
    /// - returns: 1 when the bytes are a date, 0 otherwise.
    @discardableResult
    package static func httpDate(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let date = HTTPDate.parse(String(decoding: bytes, as: UTF8.self)) else { return 0 }
        _ = HTTPDate.format(date)
        return 1
    }

    /// Parses `bytes` as a `Vary` field value and computes the selecting fields of a request
    /// that carries the same bytes in every named field.
    ///
    /// - returns: The number of names, or -1 for `Vary: *`.
    @discardableResult
    package static func vary(_ bytes: UnsafeRawBufferPointer) -> Int {
        let value = String(decoding: bytes, as: UTF8.self)
        var fields = HTTPFields()
        fields.append(HTTPField(name: .vary, value: value))
        guard let names = Vary.names(fields) else { return -1 }
        var request = HTTPFields()
        for name in names {
            if let fieldName = HTTPField.Name(name) { request.append(HTTPField(name: fieldName, value: value)) }
        }
        _ = Vary.selectingFields(names: names, request: request)
        return names.count
    }

    /// Parses `bytes` as an entity-tag list (`If-None-Match`, `If-Match`).
    ///
    /// - returns: The number of tags, or -1 for `*`.
    @discardableResult
    package static func entityTags(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let tags = EntityTag.list([String(decoding: bytes, as: UTF8.self)]) else { return -1 }
        for tag in tags { _ = tag.fieldValue }
        return tags.count
    }

    /// Stored response records written by the real encoder, for the seed corpus: one plain
    /// response, and two variants of one URL selected by `Vary`.
    package static func storedResponseSeeds() -> [Data] {
        var fields = HTTPFields()
        fields[.contentType] = "text/plain"
        fields[.cacheControl] = "max-age=60, must-revalidate"
        fields[.eTag] = "\"v1\""
        fields[.date] = "Sun, 06 Nov 1994 08:49:37 GMT"
        let plain = StoredResponse(
            status: 200, reasonPhrase: "OK", headerFields: fields, body: Data("hello".utf8),
            requestTime: Date(timeIntervalSince1970: 784_111_777), responseTime: Date(timeIntervalSince1970: 784_111_778),
            selectingFields: [:]
        )
        var varied = plain
        varied.headerFields[.vary] = "Accept-Language"
        varied.selectingFields = ["accept-language": "en"]
        var other = varied
        other.selectingFields = ["accept-language": nil]
        other.body = Data("bonjour".utf8)
        return [
            StoredResponseCoding.encode(key: "http://127.0.0.1/a", variants: [plain]),
            StoredResponseCoding.encode(key: "http://127.0.0.1/b?q=caf\u{E9}", variants: [varied, other]),
        ]
    }
}
