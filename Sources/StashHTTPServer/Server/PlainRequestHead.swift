import HTTPTypes
import StashHTTP

/// The strict reading of a request head that ``RawHitHandler`` answers before NIO's HTTP/1
/// decoder: `GET` or `HEAD`, an origin-form target of visible ASCII, `HTTP/1.1`, fields of
/// token names and visible-ASCII values, every line ending in CRLF. Anything else, including
/// what NIO's decoder would accept more leniently (bare LF, folded lines, bytes past ASCII),
/// is `.other` and goes to that decoder, so what this reads is read the same way by both.
enum PlainRequestHead {
    enum Reading {
        /// The bytes so far are the start of a head that may still qualify.
        case incomplete
        /// A head that does not qualify, or one with a field that sends a request through the
        /// full flow (see ``fullFlowFields``).
        case other
        /// A qualifying head, `length` bytes long, as the cache looks it up: as
        /// HummingbirdCore's HTTPTypes conversion gives it (the first `Host` as the
        /// authority, the other fields in order), without the fields the proxy never forwards
        /// (``FieldRole/dropped``). It carries none of ``fullFlowFields``, so it is a plain
        /// request for ``StashHTTP/HTTPCache/freshHit(forPlain:)``.
        case request(HTTPRequest, length: Int)
    }

    /// What a field does to a plain request, decided once per field as it is read, so that
    /// neither the cache's lookup nor the proxy looks for these names in the fields again.
    enum FieldRole {
        /// Kept in the request.
        case kept
        /// Left out: a field the proxy never forwards, so the cache never sees it either
        /// (``HTTPCachingProxy/droppedRequestFields``; a second `Host`, `Content-Length: 0`).
        case dropped
        /// Sends the request through the full flow (``fullFlowFields``).
        case fullFlow
    }

    /// Request fields that send a request through the full asynchronous flow: the ones a
    /// fresh hit's lookup would have to look at (conditionals and `Range`, whose answer is
    /// not the stored response; `Cache-Control` and `Pragma`, whose directives it weighs),
    /// connection handling (`Connection`, `Expect`), and a body (`Transfer-Encoding`, a
    /// `Content-Length` other than `0`).
    static let fullFlowFields: [HTTPField.Name] =
        HTTPCache.fieldsAPlainRequestLacks + [.connection, .expect, .contentLength, .transferEncoding]

    /// ``fullFlowFields`` and ``HTTPCachingProxy/droppedRequestFields``, with their roles.
    private static let specialNames = FieldNameSet(fullFlowFields + HTTPCachingProxy.droppedRequestFields.members)
    private static let specialRoles: [FieldRole] = specialNames.members.map { fullFlowFields.contains($0) ? .fullFlow : .dropped }

    /// The names browsers and HTTP clients send, in the two spellings they use, made once: a
    /// field spelled so takes the name already made rather than a new string checked and
    /// lowercased (a browser's request carries about ten fields).
    static let commonNames = FieldNameSet(spelled: [
        "Host", "User-Agent", "Accept", "Accept-Language", "Accept-Encoding", "Referer", "Cookie", "Origin",
        "If-None-Match", "If-Modified-Since", "Cache-Control", "Pragma", "Connection", "Upgrade-Insecure-Requests",
        "Sec-Fetch-Dest", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Sec-Fetch-User", "Sec-CH-UA", "Sec-CH-UA-Mobile",
        "Sec-CH-UA-Platform", "Priority", "DNT",
    ].flatMap { [$0, $0.lowercased()] })
    private static let commonRoles: [FieldRole] = commonNames.members.map { specialNames.position(of: $0).map { specialRoles[$0] } ?? .kept }

    /// What `name: value` does to a plain request, when it is not its first `Host` (which is
    /// its authority).
    static func role(of name: HTTPField.Name, value: String) -> FieldRole {
        role(specialNames.position(of: name).map { specialRoles[$0] } ?? .kept, name: name, value: value)
    }

    private static func role(_ role: FieldRole, name: HTTPField.Name, value: String) -> FieldRole {
        // `Content-Length: 0` is a request without a body, as one without the field.
        role == .fullFlow && name == .contentLength && value == "0" ? .dropped : role
    }

    /// The longest head read here; a longer one goes to NIO's decoder.
    static let maximumLength = 16 * 1024

    /// Reads the head at the start of `bytes`.
    static func read(_ bytes: UnsafeRawBufferPointer) -> Reading {
        var index = 0
        let count = bytes.count
        // The request line: method, target, version.
        let method: HTTPRequest.Method
        if startsWith(bytes, "GET ") {
            method = .get
            index = 4
        } else if startsWith(bytes, "HEAD ") {
            method = .head
            index = 5
        } else {
            return couldStillBe(bytes, "HEAD ") || couldStillBe(bytes, "GET ") ? .incomplete : .other
        }
        let targetStart = index
        while index < count, bytes[index] != UInt8(ascii: " ") {
            guard (0x21...0x7E).contains(bytes[index]) else { return .other }
            index += 1
        }
        guard index < count else { return count > maximumLength ? .other : .incomplete }
        guard index > targetStart, bytes[targetStart] == UInt8(ascii: "/") else { return .other }
        let path = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[targetStart..<index]), as: UTF8.self)
        index += 1
        let version = "HTTP/1.1\r\n"
        for byte in version.utf8 {
            guard index < count else { return .incomplete }
            guard bytes[index] == byte else { return .other }
            index += 1
        }
        // The fields, up to the empty line.
        // Gathered in an array and handed over at once: `HTTPFields.append` goes through its
        // generic, unspecialised `replaceSubrange` for each field.
        var fields: [HTTPField] = []
        fields.reserveCapacity(16)
        var authority: String?
        while true {
            guard index + 1 < count else { return count > maximumLength ? .other : .incomplete }
            if bytes[index] == UInt8(ascii: "\r") {
                guard bytes[index + 1] == UInt8(ascii: "\n") else { return .other }
                return .request(HTTPRequest(method: method, scheme: "http", authority: authority, path: path, headerFields: HTTPFields(fields)), length: index + 2)
            }
            let nameStart = index
            while index < count, bytes[index] != UInt8(ascii: ":") {
                guard (0x21...0x7E).contains(bytes[index]) else { return .other }
                index += 1
            }
            guard index < count else { return count > maximumLength ? .other : .incomplete }
            let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index])
            let name: HTTPField.Name
            let knownRole: FieldRole?
            if let position = commonNames.position(spelled: nameBytes) {
                name = commonNames.members[position]
                knownRole = commonRoles[position]
            } else {
                guard index > nameStart, let made = HTTPField.Name(String(decoding: nameBytes, as: UTF8.self)) else { return .other }
                name = made
                knownRole = nil
            }
            index += 1
            while index < count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
            let valueStart = index
            var valueEnd = index
            while index < count, bytes[index] != UInt8(ascii: "\r") {
                let byte = bytes[index]
                guard (0x20...0x7E).contains(byte) || byte == UInt8(ascii: "\t") else { return .other }
                index += 1
                if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t") { valueEnd = index }
            }
            guard index + 1 < count else { return count > maximumLength ? .other : .incomplete }
            guard bytes[index + 1] == UInt8(ascii: "\n") else { return .other }
            index += 2
            let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
            if authority == nil, name == .hostField {
                authority = value
                continue
            }
            switch knownRole.map({ role($0, name: name, value: value) }) ?? role(of: name, value: value) {
            case .kept: fields.append(HTTPField(name: name, value: value))
            case .dropped: continue
            case .fullFlow: return .other
            }
        }
    }

    private static func startsWith(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        return zip(bytes, UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)).allSatisfy { $0 == $1 }
    }

    /// Whether `bytes`, shorter than `prefix`, are its start.
    private static func couldStillBe(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        bytes.count < prefix.utf8CodeUnitCount && zip(bytes, UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)).allSatisfy { $0 == $1 }
    }
}
