import Foundation
import HTTPTypes
import StashCore
@testable import StashHTTP
import Testing

/// The cache's three decisions, as data a reviewer reads against RFC 9111: whether a new
/// response is stored, what a `304` or a `HEAD` answer does to a stored one, and whether a
/// stored one is reused. Each row names the section and what it requires, then asks the very
/// functions the cache and the proxy call (`admit`, `admitUpdate`, `select` + `Reuse`).
///
/// A message is `"STATUS | Name: value | Name: value"` (a request: `"METHOD | …"`).
struct DecisionTableTests {
    enum Expected: String, Sendable {
        /// A new response: stored, or not.
        case stored, notStored
        /// A 304 or HEAD answer about a stored response: its fields and freshness taken,
        /// the stored response left as it was, or the variant removed.
        case freshened, kept, dropped
        /// A stored response: answers the request fresh, or not at all without the origin.
        case reused, notReused
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var rfc: String
        var requires: String
        var mode: HTTPCacheMode
        var request = "GET"
        /// What is stored, for update and reuse rows (stored from an anonymous `GET`).
        var stored: String?
        /// The new response, or the 304 / HEAD answer.
        var response = ""
        var expected: Expected
        var testDescription: String { "\(rfc) \(mode): \(requires)" }
    }

    static let shared = HTTPCacheMode.shared
    static let `private` = HTTPCacheMode.private

    static let storingRows: [Row] = [
        Row(rfc: "§3", requires: "explicit freshness is stored", mode: shared, response: "200 | Cache-Control: max-age=60", expected: .stored),
        Row(rfc: "§3", requires: "a request's no-store forbids storing", mode: shared, request: "GET | Cache-Control: no-store", response: "200 | Cache-Control: max-age=60", expected: .notStored),
        Row(rfc: "§5.2.2.5", requires: "no-store forbids storing", mode: `private`, response: "200 | Cache-Control: no-store, max-age=60", expected: .notStored),
        Row(rfc: "§5.2.2.3", requires: "must-understand lifts no-store for a known status", mode: shared, response: "200 | Cache-Control: no-store, must-understand, max-age=60", expected: .stored),
        Row(rfc: "§5.2.2.3", requires: "must-understand keeps an unknown status out", mode: shared, response: "599 | Cache-Control: must-understand, max-age=60", expected: .notStored),
        Row(rfc: "§5.2.2.7", requires: "a shared cache does not store private", mode: shared, response: "200 | Cache-Control: private, max-age=60", expected: .notStored),
        Row(rfc: "§5.2.2.7", requires: "a private cache stores private", mode: `private`, response: "200 | Cache-Control: private, max-age=60", expected: .stored),
        Row(rfc: "§5.2.2.7", requires: "private naming fields still lets the rest be shared", mode: shared, response: "200 | Cache-Control: private=\"X-Account\", max-age=60", expected: .stored),
        Row(rfc: "§3.5", requires: "an authorized request's response is not shared by default", mode: shared, request: "GET | Authorization: Bearer a", response: "200 | Cache-Control: max-age=60", expected: .notStored),
        Row(rfc: "§3.5", requires: "public lets it be shared", mode: shared, request: "GET | Authorization: Bearer a", response: "200 | Cache-Control: public, max-age=60", expected: .stored),
        Row(rfc: "§3.5", requires: "s-maxage lets it be shared", mode: shared, request: "GET | Authorization: Bearer a", response: "200 | Cache-Control: s-maxage=60", expected: .stored),
        Row(rfc: "§3.5", requires: "must-revalidate lets it be shared", mode: shared, request: "GET | Authorization: Bearer a", response: "200 | Cache-Control: must-revalidate, max-age=60", expected: .stored),
        Row(rfc: "§3.5", requires: "a private cache stores an authorized request's response", mode: `private`, request: "GET | Authorization: Bearer a", response: "200 | Cache-Control: max-age=60", expected: .stored),
        Row(rfc: "§3 (cookies)", requires: "a shared cache does not store another client's Set-Cookie", mode: shared, response: "200 | Cache-Control: max-age=60 | Set-Cookie: s=1", expected: .notStored),
        Row(rfc: "§5.2.2.4", requires: "no-cache naming Set-Cookie lets the rest be shared", mode: shared, response: "200 | Cache-Control: max-age=60, no-cache=\"Set-Cookie\" | Set-Cookie: s=1", expected: .stored),
        Row(rfc: "§4.1", requires: "Vary: * is never stored", mode: `private`, response: "200 | Cache-Control: max-age=60 | Vary: *", expected: .notStored),
        Row(rfc: "§3.4", requires: "a partial response is not stored (no combination)", mode: shared, response: "206 | Cache-Control: max-age=60 | Content-Range: bytes 0-1/10", expected: .notStored),
        Row(rfc: "§3", requires: "a 304 is not a response to store", mode: shared, response: "304 | Cache-Control: max-age=60", expected: .notStored),
        Row(rfc: "§4.2.2", requires: "a heuristically cacheable status is stored", mode: shared, response: "404 | Last-Modified: Mon, 13 Nov 2023 22:13:20 GMT", expected: .stored),
        Row(rfc: "§3", requires: "nothing says storable: not stored", mode: shared, response: "201", expected: .notStored),
        Row(rfc: "§3", requires: "only GET responses are stored", mode: `private`, request: "POST", response: "200 | Cache-Control: max-age=60", expected: .notStored),
    ]

    static let updatingRows: [Row] = [
        Row(rfc: "§4.3.4", requires: "a 304 freshens the stored response", mode: shared, stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "304 | Cache-Control: max-age=60 | ETag: \"v1\"", expected: .freshened),
        Row(rfc: "§4.3.4 + §5.2.2.7", requires: "a shared cache takes no private 304", mode: shared, stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "304 | Cache-Control: private, max-age=86400 | ETag: \"v1\" | X-Account: alice", expected: .kept),
        Row(rfc: "§4.3.4 + §5.2.2.7", requires: "a private cache takes a private 304", mode: `private`, stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "304 | Cache-Control: private, max-age=86400 | ETag: \"v1\"", expected: .freshened),
        Row(rfc: "§4.3.4 + §3.5", requires: "an authorized 304 does not update a shared entry", mode: shared, request: "GET | Authorization: Bearer a", stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "304 | ETag: \"v1\" | X-Account: alice", expected: .kept),
        Row(rfc: "§4.3.4 + §3.5", requires: "unless the answer is explicitly public", mode: shared, request: "GET | Authorization: Bearer a", stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "304 | Cache-Control: public, max-age=60 | ETag: \"v1\"", expected: .freshened),
        Row(rfc: "§4.3.4 + §5.2.2.5", requires: "a no-store 304 updates nothing", mode: `private`, stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "304 | Cache-Control: no-store | ETag: \"v1\"", expected: .kept),
        Row(rfc: "§4.3.4 + §3 (cookies)", requires: "a 304 setting a cookie does not update a shared entry", mode: shared, stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "304 | ETag: \"v1\" | Set-Cookie: s=alice", expected: .kept),
        Row(rfc: "§4.3.4 + §4.1", requires: "a 304 that varies on other fields drops the variant", mode: shared, stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "304 | ETag: \"v1\" | Vary: Accept-Language", expected: .dropped),
        Row(rfc: "§4.3.4 + §4.1", requires: "a 304 with Vary: * drops the variant", mode: `private`, stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\" | Vary: Accept", response: "304 | ETag: \"v1\" | Vary: *", expected: .dropped),
        Row(rfc: "§4.3.4 + §4.1", requires: "a 304 repeating the same Vary freshens", mode: shared, request: "GET | Accept: text/html", stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\" | Vary: Accept", response: "304 | Cache-Control: max-age=60 | ETag: \"v1\" | Vary: accept", expected: .freshened),
        Row(rfc: "§4.3.5", requires: "a HEAD answer freshens like a 304", mode: shared, request: "HEAD", stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "200 | Cache-Control: max-age=60 | ETag: \"v1\"", expected: .freshened),
        Row(rfc: "§4.3.5 + §3.5", requires: "an authorized HEAD does not update a shared entry", mode: shared, request: "HEAD | Authorization: Bearer a", stored: "200 | Cache-Control: max-age=5 | ETag: \"v1\"", response: "200 | Cache-Control: private, max-age=86400 | ETag: \"v1\" | X-Account: alice", expected: .kept),
    ]

    static let reusingRows: [Row] = [
        Row(rfc: "§4.2", requires: "a fresh response is reused", mode: shared, stored: "200 | Cache-Control: max-age=60", expected: .reused),
        Row(rfc: "§5.2.2.7", requires: "a shared cache never reuses private, wherever the entry came from", mode: shared, stored: "200 | Cache-Control: private, max-age=60", expected: .notReused),
        Row(rfc: "§5.2.2.5", requires: "no-store is never reused", mode: `private`, stored: "200 | Cache-Control: no-store, max-age=60", expected: .notReused),
        Row(rfc: "§3 (cookies)", requires: "a shared cache never replays a stored Set-Cookie", mode: shared, stored: "200 | Cache-Control: max-age=60 | Set-Cookie: s=alice", expected: .notReused),
        Row(rfc: "§3.5", requires: "an authorized request is not answered from a shared entry that is not public", mode: shared, request: "GET | Authorization: Bearer a", stored: "200 | Cache-Control: max-age=60", expected: .notReused),
        Row(rfc: "§3.5", requires: "a public entry answers an authorized request", mode: shared, request: "GET | Authorization: Bearer a", stored: "200 | Cache-Control: public, max-age=60", expected: .reused),
        Row(rfc: "§5.2.2.4", requires: "no-cache is validated before reuse", mode: `private`, stored: "200 | Cache-Control: no-cache, max-age=60", expected: .notReused),
        Row(rfc: "§5.2.1.4", requires: "a request's no-cache is validated", mode: shared, request: "GET | Cache-Control: no-cache", stored: "200 | Cache-Control: max-age=60", expected: .notReused),
        Row(rfc: "§4.1", requires: "a variant for another Accept-Language is not reused", mode: shared, request: "GET | Accept-Language: de", stored: "200 | Cache-Control: max-age=60 | Vary: Accept-Language", expected: .notReused),
    ]

    static let requestTime = Date(timeIntervalSince1970: 1_700_000_000)

    static func request(_ message: String) -> HTTPRequest {
        let parts = message.components(separatedBy: " | ")
        var request = HTTPRequest(method: HTTPRequest.Method(parts[0])!, scheme: "http", authority: "example.com", path: "/p")
        for line in parts.dropFirst() { request.headerFields.append(field(line)) }
        return request
    }

    static func response(_ message: String) -> HTTPResponse {
        let parts = message.components(separatedBy: " | ")
        var response = HTTPResponse(status: .init(code: Int(parts[0])!))
        for line in parts.dropFirst() { response.headerFields.append(field(line)) }
        if response.headerFields[.date] == nil { response.headerFields[.date] = HTTPDate.format(requestTime) }
        return response
    }

    static func field(_ line: String) -> HTTPField {
        let colon = line.firstIndex(of: ":")!
        return HTTPField(name: HTTPField.Name(String(line[..<colon]))!, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    static func cache(_ mode: HTTPCacheMode) throws -> HTTPCache {
        try HTTPCache(diskCapacity: 0, mode: mode, clock: ManualClock(now: requestTime))
    }

    @Test(arguments: storingRows)
    func storing(_ row: Row) throws {
        let admitted = try Self.cache(row.mode).admit(Self.response(row.response), body: Data(), for: Self.request(row.request), requestTime: Self.requestTime, responseTime: Self.requestTime)
        #expect((admitted == nil ? Expected.notStored : .stored) == row.expected, "\(row.requires)")
    }

    @Test(arguments: updatingRows)
    func updating(_ row: Row) throws {
        let cache = try Self.cache(row.mode)
        let request = Self.request(row.request)
        var anonymous = request
        anonymous.method = .get
        anonymous.headerFields[.authorization] = nil
        let stored = try #require(cache.admit(Self.response(row.stored!), body: Data("hello".utf8), for: anonymous, requestTime: Self.requestTime, responseTime: Self.requestTime)).stored
        let later = Self.requestTime.addingTimeInterval(10)
        let update = cache.admitUpdate(of: stored, by: Self.response(row.response), for: request, requestTime: later, responseTime: later)
        let outcome: Expected
        switch update {
        case .freshen(let admitted):
            outcome = .freshened
            // Freshened: the answer's fields in, its clock started over, the body kept.
            #expect(admitted.stored.responseTime == later && admitted.stored.body == stored.body)
            for field in Self.response(row.response).headerFields where field.name != .date && !StorageRules.excludedNames(Self.response(row.response).headerFields, mode: row.mode).contains(field.name.canonicalName) {
                #expect(admitted.stored.headerFields[values: field.name].contains(field.value), "\(field.name) not taken")
            }
        case .keep: outcome = .kept
        case .drop: outcome = .dropped
        }
        #expect(outcome == row.expected, "\(row.requires)")
    }

    @Test(arguments: reusingRows)
    func reusing(_ row: Row) throws {
        let cache = try Self.cache(row.mode)
        let response = Self.response(row.stored!)
        // Made as storage would hold it, whatever the rules for storing say: reuse is decided
        // on what is read, which may come from another writer.
        let stored = StoredResponse(
            status: response.status.code, reasonPhrase: "", headerFields: response.headerFields, body: Data("hello".utf8),
            requestTime: Self.requestTime, responseTime: Self.requestTime,
            selectingFields: Vary.selectingFields(names: Vary.names(response.headerFields) ?? [], request: Self.request("GET | Accept-Language: en").headerFields)
        )
        let request = Self.request(row.request)
        let reused = cache.select(request.headerFields, from: [stored]).map {
            Reuse.decide($0, fields: request.headerFields, directives: RequestDirectives(request.headerFields), mode: row.mode, now: Self.requestTime.addingTimeInterval(1))
        } == .fresh
        #expect((reused ? Expected.reused : .notReused) == row.expected, "\(row.requires)")
    }
}
