import HTTPTypes
package import NIOHTTP1
import StashHTTP
package import StashHTTPWire

extension RequestHeadFuzzing {
    /// How `request`, read by ``StashHTTPWire/PlainRequestHead``, differs from `head`, NIO's
    /// decoder's reading of the same bytes, or `nil` when it does not.
    ///
    /// The two agree when NIO's head is an HTTP/1.1 `GET` or `HEAD` of the same target, its
    /// first `Host` is the request's authority (and it has no second one, which the raw path
    /// leaves to the decoder), none of its fields sends a request through the full flow
    /// (``StashHTTPWire/PlainRequestHead/FieldRole/fullFlow``), and its other fields, without
    /// those the raw path drops, are the request's kept fields, in order, spelled the same,
    /// with the same values (without the whitespace around them, as `HTTPField` holds them),
    /// found the same by a lookup of their name, and `Authorization` is noted when it is there.
    ///
    /// ```swift
    /// if case .request(let request, _) = PlainRequestHead.read(buffer), let divergence = RequestHeadFuzzing.divergence(between: request, and: head) {
    ///     print(divergence)
    /// }
    /// ```
    package static func divergence(between request: PlainRequestHead.Request, and head: HTTPRequestHead) -> String? {
        guard head.version == .http1_1 else { return "version: NIO reads \(head.version)" }
        let method: HTTPRequest.Method? = switch head.method {
        case .GET: .get
        case .HEAD: .head
        default: nil
        }
        guard method == request.method else { return "method: \(request.method), NIO reads \(head.method)" }
        guard head.uri == request.path else { return "target: \(request.path.debugDescription), NIO reads \(head.uri.debugDescription)" }
        var authority: String?
        var expected: [(name: String, value: String)] = []
        var carriesAuthorization = false
        for (name, value) in head.headers {
            guard let fieldName = HTTPField.Name(name) else { return "NIO reads a field name HTTPTypes refuses: \(name.debugDescription)" }
            if fieldName == .authorization { carriesAuthorization = true }
            if fieldName == .hostField {
                guard authority == nil else { return "NIO reads a second Host: \(value.debugDescription)" }
                authority = value
                continue
            }
            // The decoder keeps whitespace after a value, which `HTTPField` drops.
            switch PlainRequestHead.role(of: fieldName, value: trimmed(value)) {
            case .kept: expected.append((name, trimmed(value)))
            case .dropped: continue
            case .fullFlow: return "NIO reads a field that sends the request through the full flow: \(name): \(value.debugDescription)"
            }
        }
        guard authority == request.authority else {
            return "Host: \(request.authority.debugDescription), NIO reads \(authority.debugDescription)"
        }
        var kept: [(name: String, value: String)] = []
        request.fields.forEachKept { kept.append((String(decoding: $0, as: UTF8.self), String(decoding: $1, as: UTF8.self))) }
        guard kept.elementsEqual(expected, by: { $0.name == $1.name && $0.value == $1.value }) else {
            return "fields: \(kept), NIO reads \(expected)"
        }
        guard request.fields.carriesAuthorization == carriesAuthorization else {
            return "Authorization noted \(request.fields.carriesAuthorization), NIO reads \(carriesAuthorization)"
        }
        for name in Set(expected.map { $0.name.lowercased() }) {
            let fieldName = HTTPField.Name(name)!
            var found: [String] = []
            request.fields.forEachValue(of: fieldName) { found.append($0) }
            let wanted = expected.filter { $0.name.lowercased() == name }.map(\.value)
            guard found == wanted else { return "a lookup of \(name) finds \(found), NIO reads \(wanted)" }
        }
        return nil
    }

    /// `value` without the spaces and tabs around it, as `HTTPField` holds a valid value.
    private static func trimmed(_ value: String) -> String {
        let bytes = Array(value.utf8)
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }), let last = bytes.lastIndex(where: { !isWhitespace($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
