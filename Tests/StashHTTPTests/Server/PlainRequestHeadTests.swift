import HTTPTypes
import NIOCore
import StashHTTP
import Testing
@testable import StashHTTPWire

/// The strict reading of request heads answered before NIO's HTTP/1 decoder: what it reads
/// is what HummingbirdCore's conversion gives, and whatever it does not read plainly goes to
/// the decoder.
struct PlainRequestHeadTests {
    private func read(_ text: String) -> PlainRequestHead.Reading {
        PlainRequestHead.read(ByteBuffer(string: text))
    }

    /// The kept fields of `request`, as `name=value` with the client's spelling.
    private func kept(_ request: PlainRequestHead.Request) -> [String] {
        var kept: [String] = []
        request.fields.forEachKept { kept.append("\(String(decoding: $0, as: UTF8.self))=\(String(decoding: $1, as: UTF8.self))") }
        return kept
    }

    @Test func plainHeadIsReadAsTheConversionGivesIt() throws {
        let text = "GET /a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\nAccept:  text/plain \t\r\nX-Two: 1\r\nX-Two: 2\r\nKeep-Alive: 5\r\n\r\nGET /next"
        guard case .request(let request, let length) = read(text) else {
            Issue.record("not read: \(read(text))")
            return
        }
        #expect(length == text.utf8.count - "GET /next".utf8.count)
        #expect(request.method == .get && request.path == "/a/b?c=d")
        #expect(request.authority == "example.com:8080")
        // `Keep-Alive` is never forwarded, so the cache never sees it either.
        #expect(kept(request) == ["Accept=text/plain", "X-Two=1", "X-Two=2"])
        // A second `Host`, in any spelling, goes to the decoder, whose gate refuses it.
        for second in ["Host: second", "host: example.com:8080", "HOST: a"] {
            guard case .other = read("GET / HTTP/1.1\r\nHost: example.com:8080\r\n\(second)\r\n\r\n") else {
                Issue.record("a second Host (\(second)) was read")
                continue
            }
        }
        guard case .request(let head, _) = read("HEAD / HTTP/1.1\r\nContent-Length: 0\r\n\r\n") else {
            Issue.record("HEAD not read")
            return
        }
        #expect(head.method == .head && head.authority == nil && kept(head).isEmpty)
    }

    /// Every field that would rule a fresh hit out, or change how the connection goes on, or
    /// bring a body, sends the request to the decoder, in any spelling; every field the
    /// proxy never forwards is left out: so a request read here is a plain one for
    /// `HTTPCache.freshHit(forPlain:authority:path:fields:)`, which looks for none of them again.
    @Test func fieldsAreSortedAsTheyAreRead() throws {
        for name in PlainRequestHead.fullFlowFields {
            for spelling in [name.rawName, name.canonicalName, name.canonicalName.uppercased()] {
                let value = name == .contentLength ? "5" : "x"
                let text = "GET / HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\(spelling): \(value)\r\n\r\n"
                guard case .other = read(text) else {
                    Issue.record("\(spelling) read as \(read(text))")
                    continue
                }
            }
        }
        for name in DroppedRequestFields.names.members where !PlainRequestHead.fullFlowFields.contains(name) && name != .hostField {
            for spelling in [name.rawName, name.canonicalName.uppercased()] {
                let text = "GET / HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\(spelling): x\r\nX-After: y\r\n\r\n"
                guard case .request(let request, _) = read(text) else {
                    Issue.record("\(spelling) not read: \(read(text))")
                    continue
                }
                #expect(kept(request) == ["Accept=*/*", "X-After=y"], "\(spelling)")
            }
        }
        #expect(PlainRequestHead.fullFlowFields.contains(.ifNoneMatch) && PlainRequestHead.fullFlowFields.contains(.range))
        #expect(DroppedRequestFields.names.contains(.upgrade))
        #expect(PlainRequestHead.role(of: .contentLength, value: "0") == .dropped)
        #expect(PlainRequestHead.role(of: .contentLength, value: "00") == .fullFlow)
        #expect(PlainRequestHead.role(of: try #require(HTTPField.Name("X-Other")), value: "") == .kept)
    }

    /// Names a browser sends are recognised in either spelling they use, any other spelling
    /// by its bytes in any case: each keeps the client's spelling, and a lookup finds every
    /// spelling of one name.
    @Test func commonNamesKeepTheClientsSpelling() throws {
        let spellings = ["User-Agent", "user-agent", "USER-AGENT", "uSER-aGENT", "Sec-Fetch-Dest", "sec-fetch-dest", "X-Other"]
        let text = "GET / HTTP/1.1\r\nHost: a\r\n" + spellings.map { "\($0): v\r\n" }.joined() + "\r\n"
        guard case .request(let request, _) = read(text) else {
            Issue.record("not read: \(read(text))")
            return
        }
        #expect(kept(request) == spellings.map { "\($0)=v" })
        var userAgents = 0
        request.fields.forEachValue(of: .userAgent) { _ in userAgents += 1 }
        #expect(userAgents == 4)
    }

    @Test(arguments: ["", "G", "GET", "HEA", "GET /page", "GET /page HTTP/1", "GET /page HTTP/1.1\r\nHost: a", "GET / HTTP/1.1\r\nHost: a\r\n", "GET / HTTP/1.1\r\nHost: a\r\n\r"])
    func startOfAPlainHeadIsIncomplete(_ text: String) {
        guard case .incomplete = read(text) else {
            Issue.record("\(text.debugDescription) read as \(read(text))")
            return
        }
    }

    @Test(arguments: [
        "POST / HTTP/1.1\r\n\r\n", "get / HTTP/1.1\r\n\r\n", "GET http://a/ HTTP/1.1\r\n\r\n", "GET * HTTP/1.1\r\n\r\n",
        "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.0\r\n\r\n", "GET / HTTP/1.1\n\r\n", "GET / HTTP/1.1\r\nHost: a\n\r\n",
        "GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\nX : a\r\n\r\n", "GET / HTTP/1.1\r\nX: caf\u{e9}\r\n\r\n",
        "GET /caf\u{e9} HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nCache-Control: no-cache\r\n\r\n", "GET / HTTP/1.1\r\nPragma: no-cache\r\n\r\n",
        "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", "GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi", "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "GET / HTTP/1.1\r\n: empty\r\n\r\n",
    ])
    func anythingElseGoesToTheDecoder(_ text: String) {
        guard case .other = read(text) else {
            Issue.record("\(text.debugDescription) read as \(read(text))")
            return
        }
    }

    @Test func overlongHeadGoesToTheDecoder() {
        let long = "GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: PlainRequestHead.maximumLength)
        guard case .other = read(long) else {
            Issue.record("an overlong head is not left to the decoder")
            return
        }
    }
}
