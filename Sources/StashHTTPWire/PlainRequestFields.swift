package import HTTPTypes
package import NIOCore
import StashHTTP

/// The fields of a request head read by ``PlainRequestHead``, left as the bytes it read: a
/// lookup reads the lines of a name only when a stored response varies on it, and nothing
/// of any other field is made (no `String`, `HTTPField` or `HTTPField.Name`).
///
/// They are the fields HummingbirdCore's HTTPTypes conversion would give, in order, without
/// those the proxy drops (``PlainRequestHead/FieldRole``): the first `Host` is the request's
/// authority, and no field of ``PlainRequestHead/specialNames`` is kept.
///
/// ```swift
/// if case .request(let request, _) = PlainRequestHead.read(buffer) {
///     cache.freshHit(forPlain: request.method, authority: host, path: request.path, fields: request.fields)
/// }
/// ```
package struct PlainRequestFields: RequestFieldLines {
    /// The head's field lines, each checked by ``PlainRequestHead`` (a token name, a colon,
    /// a visible-ASCII value, CRLF), and the empty line that ends them: a slice of the read
    /// buffer, not a copy.
    package let lines: ByteBuffer
    /// Whether a field is named `Authorization`, in any case, noted as the head was read.
    package let carriesAuthorization: Bool

    package func forEachValue(of name: HTTPField.Name, _ body: (String) -> Void) {
        guard !PlainRequestHead.specialNames.contains(name) else { return }
        var canonical = name.canonicalName
        canonical.withUTF8 { wanted in
            forEachLine { line, value in
                if FieldNameSet.isSpelling(line, of: UnsafeRawBufferPointer(wanted)) { body(String(decoding: value, as: UTF8.self)) }
            }
        }
    }

    /// Calls `body` with the name, as spelled, and the value of each kept field, in order.
    package func forEachKept(_ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) {
        forEachLine { name, value in
            if PlainRequestHead.specialNames.position(anyCase: name) == nil { body(name, value) }
        }
    }

    /// Calls `body` with the name and the value (without the whitespace around it) of each
    /// line, kept or not.
    private func forEachLine(_ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) {
        lines.withUnsafeReadableBytes { bytes in
            var index = 0
            while bytes[index] != UInt8(ascii: "\r") {
                let nameStart = index
                while bytes[index] != UInt8(ascii: ":") { index += 1 }
                let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index])
                index += 1
                while bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
                let valueStart = index
                var valueEnd = index
                while bytes[index] != UInt8(ascii: "\r") {
                    let byte = bytes[index]
                    index += 1
                    if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t") { valueEnd = index }
                }
                body(name, UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]))
                index += 2
            }
        }
    }
}
