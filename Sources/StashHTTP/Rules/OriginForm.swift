/// A request target in origin form (RFC 9112 §3.2.1): an absolute path starting with `/`,
/// then an optional `?query`, never a fragment. The one form a proxy forwards, and the one
/// from which a transport builds an upstream URL part by part.
///
/// ```swift
/// OriginForm.isValid("/a/b?q=1")          // true
/// OriginForm.isValid("*@127.0.0.1:9/x")   // false: not a path
/// OriginForm.parts(of: "/a|b?q={1}")       // ("/a%7Cb", "q=%7B1%7D")
/// ```
package enum OriginForm {
    /// Whether `bytes` are an origin-form target: `/` first, visible ASCII only, no `#`, and
    /// every `%` followed by two hexadecimal digits. Bytes RFC 3986 does not allow but
    /// clients send unescaped (`|`, `{`, `"`…) pass; ``parts(of:)`` escapes them.
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.first == UInt8(ascii: "/") else { return false }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard (0x21...0x7E).contains(byte), byte != UInt8(ascii: "#") else { return false }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    /// Whether `target` is an origin-form target (``isValid(_:)-(UnsafeRawBufferPointer)``).
    package static func isValid(_ target: String) -> Bool {
        var target = target
        return target.withUTF8 { isValid(UnsafeRawBufferPointer($0)) }
    }

    /// The path and query of `target`, each percent-encoded where RFC 3986 asks (a `%` that
    /// starts no escape becomes `%25`), ready for `URLComponents.percentEncodedPath` and
    /// `percentEncodedQuery`; `nil` when `target` does not start with `/` or holds a `#`
    /// or a byte outside visible ASCII.
    package static func parts(of target: String) -> (path: String, query: String?)? {
        let bytes = Array(target.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "#") }) else { return nil }
        let split = bytes.firstIndex(of: UInt8(ascii: "?"))
        let path = encoded(bytes[..<(split ?? bytes.count)], allowing: UInt8(ascii: "/"))
        let query = split.map { encoded(bytes[($0 + 1)...], allowing: UInt8(ascii: "/"), UInt8(ascii: "?")) }
        return (path, query)
    }

    /// `bytes` with every byte outside `pchar` and `extra` escaped.
    private static func encoded(_ bytes: ArraySlice<UInt8>, allowing extra: UInt8...) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            let isEscape = byte == UInt8(ascii: "%") && index + 2 < bytes.endIndex && bytes[index + 1].isHexDigit && bytes[index + 2].isHexDigit
            if isEscape || byte.isUnreserved || byte.isSubDelimiter || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@") || extra.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
