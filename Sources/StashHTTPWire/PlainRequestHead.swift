package import HTTPTypes
package import NIOCore
package import StashHTTP

/// The strict reading of a request head that ``RawHitHandler`` answers before NIO's HTTP/1
/// decoder: `GET` or `HEAD`, an origin-form target of visible ASCII, `HTTP/1.1`, fields of
/// token names and visible-ASCII values, every line ending in CRLF. Anything else, including
/// what NIO's decoder would accept more leniently (bare LF, folded lines, bytes past ASCII),
/// is `.other` and goes to that decoder, so what this reads is read the same way by both.
///
/// Each field is sorted by its name's bytes as it is read (``FieldRole``) and left in the
/// read buffer: nothing is made of a kept field (no `String`, `HTTPField` or
/// `HTTPField.Name`) until a lookup asks for it (``PlainRequestFields``).
package enum PlainRequestHead {
    /// What ``read(_:)`` made of the bytes at the start of a buffer.
    package enum Reading {
        /// The bytes so far are the start of a head that may still qualify.
        case incomplete
        /// A head that does not qualify, or one with a field that sends a request through the
        /// full flow (see ``fullFlowFields``).
        case other
        /// A qualifying head, `length` bytes long. It carries none of ``fullFlowFields``, so
        /// it is a plain request for ``StashHTTP/HTTPCache/freshHit(forPlain:authority:path:fields:)``.
        case request(Request, length: Int)
    }

    /// A qualifying head as the cache looks it up: as HummingbirdCore's HTTPTypes conversion
    /// gives it (the first `Host` as the authority, the other fields in order), without the
    /// fields the proxy never forwards (``FieldRole/dropped``).
    package struct Request {
        /// `GET` or `HEAD`.
        package let method: HTTPRequest.Method
        /// The value of the first `Host` field; `nil` without one.
        package let authority: String?
        /// The origin-form target.
        package let path: String
        /// The kept fields, read from the head's bytes when a lookup asks for them.
        package let fields: PlainRequestFields
    }

    /// What a field does to a plain request, decided once per field as it is read, so that
    /// neither the cache's lookup nor the proxy looks for these names in the fields again.
    package enum FieldRole {
        /// Kept in the request.
        case kept
        /// Left out: a field the proxy never forwards, so the cache never sees it either
        /// (``DroppedRequestFields``, one `Content-Length: 0`; a second `Host`, a `Host` or `Content-Length` with whitespace after its value or a second `Content-Length` sends the head to the decoder, which refuses it or whose gate does).
        case dropped
        /// Sends the request through the full flow (``fullFlowFields``).
        case fullFlow
    }

    /// Request fields that send a request through the full asynchronous flow: the ones a
    /// fresh hit's lookup would have to look at (conditionals and `Range`, whose answer is
    /// not the stored response; `Cache-Control` and `Pragma`, whose directives it weighs),
    /// connection handling (`Connection`, `Expect`), and a body (`Transfer-Encoding`, a
    /// `Content-Length` other than `0`).
    package static let fullFlowFields: [HTTPField.Name] =
        HTTPCache.fieldsAPlainRequestLacks + [.connection, .expect, .contentLength, .transferEncoding]

    /// ``fullFlowFields`` and ``DroppedRequestFields``: every name whose
    /// role is not ``FieldRole/kept``, with its role. A request read here keeps no field of
    /// these names (those of ``fullFlowFields`` are not read here, the others are dropped).
    package static let specialNames = FieldNameSet(fullFlowFields + DroppedRequestFields.names.members)
    private static let specialRoles: [FieldRole] = specialNames.members.map { fullFlowFields.contains($0) ? .fullFlow : .dropped }
    private static let hostPosition = specialNames.position(of: .hostField)!
    private static let contentLengthPosition = specialNames.position(of: .contentLength)!
    private static let authorization = FieldNameSet([.authorization])

    /// The names browsers and HTTP clients send, in the two spellings they use: a field
    /// spelled so is sorted by one comparison of its bytes, without checking them as a token
    /// and comparing them case-insensitively with ``specialNames`` (a browser's request
    /// carries about ten fields).
    package static let commonNames = FieldNameSet(spelled: [
        "Host", "User-Agent", "Accept", "Accept-Language", "Accept-Encoding", "Referer", "Cookie", "Origin",
        "If-None-Match", "If-Modified-Since", "Cache-Control", "Pragma", "Connection", "Upgrade-Insecure-Requests",
        "Sec-Fetch-Dest", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Sec-Fetch-User", "Sec-CH-UA", "Sec-CH-UA-Mobile",
        "Sec-CH-UA-Platform", "Priority", "DNT",
    ].flatMap { [$0, $0.lowercased()] })
    /// For each of ``commonNames``, its position in ``specialNames``.
    private static let commonSpecial: [Int?] = commonNames.members.map { specialNames.position(of: $0) }

    /// What `name: value` does to a plain request, when it is not its first `Host` (which is
    /// its authority).
    package static func role(of name: HTTPField.Name, value: String) -> FieldRole {
        var canonical = name.canonicalName, value = value
        return canonical.withUTF8 { name in
            value.withUTF8 { value in
                specialNames.position(anyCase: UnsafeRawBufferPointer(name)).map { role(special: $0, value: UnsafeRawBufferPointer(value)) } ?? .kept
            }
        }
    }

    /// The role of a field named by the member at `position` of ``specialNames``, with `value`.
    private static func role(special position: Int, value: UnsafeRawBufferPointer) -> FieldRole {
        // `Content-Length: 0` is a request without a body, as one without the field.
        position == contentLengthPosition && value.count == 1 && value[0] == UInt8(ascii: "0") ? .dropped : specialRoles[position]
    }

    /// The longest head read here; a longer one goes to NIO's decoder.
    package static let maximumLength = 16 * 1024

    /// Reads the head at the start of `buffer`'s readable bytes. A request read keeps a
    /// slice of `buffer` (no copy) for its fields.
    package static func read(_ buffer: ByteBuffer) -> Reading {
        buffer.withUnsafeReadableBytes { bytes in
            read(bytes) { buffer.getSlice(at: buffer.readerIndex + $0.lowerBound, length: $0.count)! }
        }
    }

    /// Reads the head at the start of `bytes`; `slice` gives the bytes of a range of them
    /// that the request keeps.
    private static func read(_ bytes: UnsafeRawBufferPointer, slice: (Range<Int>) -> ByteBuffer) -> Reading {
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
        let targetEnd = index
        index += 1
        let version = "HTTP/1.1\r\n"
        for byte in version.utf8 {
            guard index < count else { return .incomplete }
            guard bytes[index] == byte else { return .other }
            index += 1
        }
        // The fields, up to the empty line: each one checked and sorted, none made.
        let fieldsStart = index
        var authority: Range<Int>?
        var carriesAuthorization = false
        var carriesContentLength = false
        while true {
            guard index + 1 < count else { return count > maximumLength ? .other : .incomplete }
            if bytes[index] == UInt8(ascii: "\r") {
                guard bytes[index + 1] == UInt8(ascii: "\n") else { return .other }
                let length = index + 2
                return .request(
                    Request(
                        method: method,
                        authority: authority.map { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0]), as: UTF8.self) },
                        path: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[targetStart..<targetEnd]), as: UTF8.self),
                        fields: PlainRequestFields(lines: slice(fieldsStart..<length), carriesAuthorization: carriesAuthorization)
                    ),
                    length: length
                )
            }
            let nameStart = index
            while index < count, bytes[index] != UInt8(ascii: ":") {
                guard (0x21...0x7E).contains(bytes[index]) else { return .other }
                index += 1
            }
            guard index < count else { return count > maximumLength ? .other : .incomplete }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index])
            let special: Int?
            if let position = commonNames.position(spelled: name) {
                special = commonSpecial[position]
            } else {
                // The names `HTTPField.Name` refuses (none here is made) go to the decoder,
                // which refuses them the same way.
                guard index > nameStart, name.allSatisfy(\.isTokenCharacter) else { return .other }
                special = specialNames.position(anyCase: name)
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
            guard let special else {
                if !carriesAuthorization, authorization.position(anyCase: name) != nil { carriesAuthorization = true }
                continue
            }
            if special == hostPosition {
                // A second `Host` is refused (``RequestGate``), so it goes to the decoder.
                // So does one with whitespace after its value: the decoder keeps that
                // whitespace in the value, which the gate then refuses as an authority.
                guard authority == nil, valueEnd == index - 2 else { return .other }
                authority = valueStart..<valueEnd
                continue
            }
            if special == contentLengthPosition {
                // The decoder refuses a second `Content-Length`, even `0` twice, and decides
                // alone on whitespace after its value (it refuses `0` followed by a tab).
                guard !carriesContentLength, valueEnd == index - 2 else { return .other }
                carriesContentLength = true
            }
            switch role(special: special, value: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd])) {
            case .kept, .dropped: continue
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
