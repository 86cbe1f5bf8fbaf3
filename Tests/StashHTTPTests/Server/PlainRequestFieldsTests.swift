import Foundation
import HTTPTypes
import NIOCore
import StashCore
import StashHTTP
import StashTestSupport
import Testing
@testable import StashHTTPWire

/// A plain request's fields left in the bytes read (``PlainRequestFields``): the lookup made
/// through them selects what `HTTPCache.freshHit(for:)` selects for the same request as an
/// `HTTPRequest`, whatever the case of the names, however many lines a field has.
struct PlainRequestFieldsTests {
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))

    typealias Line = (name: String, value: String)

    /// Stored variants: each path's `Vary`, and the fields of the requests stored under it.
    static let stored: [(path: String, vary: String, requests: [[Line]])] = [
        ("/lang", "Accept-Language", [[("Accept-Language", "en")], [("Accept-Language", "de, fr")], [("accept-language", "FR"), ("Accept-Language", "de-CH")]]),
        ("/enc", "Accept-Encoding", [[("Accept-Encoding", "gzip, br")], [("Accept-Encoding", "identity")]]),
        ("/two", "Accept-Language, X-Flavour", [[("Accept-Language", "en"), ("X-Flavour", "mint")], [("Accept-Language", "en")]]),
        ("/absent", "X-Absent", [[], [("X-Absent", "yes")]]),
        ("/twice", "X-List", [[("X-List", "a"), ("X-List", "b")], [("X-List", "a, b, c")]]),
        ("/odd", "aCCEPT-lANGUAGE, x-fLAVOUR", [[("ACCEPT-LANGUAGE", "en"), ("x-flavour", "mint")], [("aCcEpT-LaNgUaGe", "de")]]),
        ("/dropped", "Keep-Alive, Host, Proxy-Authorization", [[]]),
    ]

    /// Field lines requests pick from: the names varied on, and names the proxy drops.
    static let pool: [(name: String, values: [String])] = [
        ("Accept-Language", ["en", "EN", "de, fr", "fr, de", "fr ,  DE", "de-CH", "fr", "en-US"]),
        ("Accept-Encoding", ["gzip, br", "br,gzip", "identity", "GZIP, BR"]),
        ("X-Flavour", ["mint", "Mint"]), ("X-Absent", ["yes"]), ("X-List", ["a", "b", "a, b", "c", "a, b, c"]),
        ("Keep-Alive", ["5"]), ("Proxy-Authorization", ["x"]), ("User-Agent", ["t"]),
    ]

    /// `GET path` with `lines` after its `Host`, as the raw bytes and as the `HTTPRequest`
    /// HummingbirdCore's conversion and the proxy give the cache (the first `Host` as the
    /// authority, the fields the proxy never forwards left out).
    static func request(_ path: String, _ lines: [Line]) -> (text: String, request: HTTPRequest) {
        let text = "GET \(path) HTTP/1.1\r\nHost: example.com\r\n" + lines.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n"
        var fields = HTTPFields()
        for line in lines {
            let name = HTTPField.Name(line.name)!
            if !DroppedRequestFields.names.contains(name) { fields.append(HTTPField(name: name, value: line.value)) }
        }
        return (text, HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: path, headerFields: fields))
    }

    /// The lookup through the raw head's fields.
    static func rawHit(_ cache: HTTPCache, _ text: String) -> FreshHit? {
        guard case .request(let request, _) = PlainRequestHead.read(ByteBuffer(string: text)) else {
            Issue.record("not read: \(text.debugDescription)")
            return nil
        }
        return cache.freshHit(forPlain: request.method, authority: request.authority ?? "", path: request.path, fields: request.fields)
    }

    static func body(_ hit: FreshHit?) -> String? { hit.map { String(decoding: $0.body, as: UTF8.self) } }

    @Test func rawLookupSelectsWhatTheRequestLookupSelects() throws {
        let cache = try HTTPCache(diskCapacity: 0, clock: clock)
        for (path, vary, requests) in Self.stored {
            for (index, lines) in requests.enumerated() {
                let response = HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=60", .vary: vary])
                #expect(cache.storeResponse(response, body: Data("\(path) #\(index)".utf8), for: Self.request(path, lines).request))
                clock.advance(by: 1)
            }
        }
        // Each stored request finds its own variant both ways.
        for (path, _, requests) in Self.stored {
            for (index, lines) in requests.enumerated() {
                let (text, request) = Self.request(path, lines)
                #expect(Self.body(cache.freshHit(for: request)) == "\(path) #\(index)", "\(text.debugDescription)")
                #expect(Self.body(Self.rawHit(cache, text)) == "\(path) #\(index)", "\(text.debugDescription)")
            }
        }
        // Requests of random fields, names in random case spellings.
        let seed = SeededGenerator.freshSeed(for: "PlainRequestFieldsTests.rawLookupSelectsWhatTheRequestLookupSelects")
        var generator = SeededGenerator(seed: seed)
        var hits = 0
        for _ in 0..<400 {
            let path = Self.stored.randomElement(using: &generator)!.path
            var lines: [Line] = []
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                let field = Self.pool.randomElement(using: &generator)!
                let name = String(field.name.map { Bool.random(using: &generator) ? Character($0.uppercased()) : Character($0.lowercased()) })
                lines.append((name, field.values.randomElement(using: &generator)!))
            }
            let (text, request) = Self.request(path, lines)
            let expected = Self.body(cache.freshHit(for: request))
            #expect(Self.body(Self.rawHit(cache, text)) == expected, "seed \(seed): \(text.debugDescription)")
            if expected != nil { hits += 1 }
        }
        #expect(hits > 40, "seed \(seed): too few requests hit to compare selections")
    }

    /// A shared cache reuses a response for a request with `Authorization`, in any case
    /// spelling, only when the response says so (`public`, `s-maxage`, `must-revalidate`).
    @Test func authorizationInAnySpellingRulesOutASharedHit() throws {
        let cache = try HTTPCache(diskCapacity: 0, mode: .shared, clock: clock)
        for (path, cacheControl) in [("/private", "max-age=60"), ("/public", "public, max-age=60")] {
            let response = HTTPResponse(status: .ok, headerFields: [.cacheControl: cacheControl])
            #expect(cache.storeResponse(response, body: Data(path.utf8), for: Self.request(path, []).request))
        }
        for spelling in ["Authorization", "authorization", "AUTHORIZATION", "aUtHoRiZaTiOn"] {
            let (text, request) = Self.request("/private", [("Accept", "*/*"), (spelling, "Bearer t")])
            guard case .request(let plain, _) = PlainRequestHead.read(ByteBuffer(string: text)) else {
                Issue.record("not read: \(text.debugDescription)")
                continue
            }
            #expect(plain.fields.carriesAuthorization, "\(spelling)")
            #expect(Self.rawHit(cache, text) == nil, "\(spelling)")
            #expect(cache.freshHit(for: request) == nil, "\(spelling)")
            let (publicText, _) = Self.request("/public", [(spelling, "Bearer t")])
            #expect(Self.body(Self.rawHit(cache, publicText)) == "/public", "\(spelling)")
        }
        let (text, _) = Self.request("/private", [("X-Authorization", "t"), ("Authorization-X", "t")])
        #expect(Self.body(Self.rawHit(cache, text)) == "/private")
    }
}
