import Foundation

/// One `Set-Cookie` field parsed by RFC 6265 section 5.2, before the jar decides whether
/// to store it (section 5.3).
struct SetCookie: Sendable, Equatable {
    /// The longest name plus value a cookie may have (RFC 6265bis; browsers agree).
    static let maximumNameAndValue = 4096
    /// The longest attribute value the parser keeps (RFC 6265bis); longer ones are ignored.
    static let maximumAttributeValue = 1024

    var name: String
    var value: String
    /// From `Max-Age` (which wins) or `Expires`; `nil` for a session cookie.
    var expires: Date?
    /// The `Domain` attribute, lowercase, without a leading dot; `nil` when absent.
    var domain: String?
    /// The `Path` attribute when it starts with `/`; `nil` otherwise.
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: CookieJar.Cookie.SameSite?

    /// Why a field was ignored, for the jar's log and errors.
    enum Refusal: Error, Equatable {
        case controlCharacter
        case noEquals
        case emptyName
        case tooLong
    }

    /// Parses one `Set-Cookie` value; `now` turns `Max-Age` into a date.
    static func parse(_ line: String, now: Date) -> Result<SetCookie, Refusal> {
        // RFC 6265bis 5.6: a line with a control character other than tab is ignored whole.
        for byte in line.utf8 where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            return .failure(.controlCharacter)
        }
        let pair: Substring
        let attributes: Substring
        if let semicolon = line.firstIndex(of: ";") {
            pair = line[..<semicolon]
            attributes = line[line.index(after: semicolon)...]
        } else {
            pair = line[...]
            attributes = ""
        }
        guard let equals = pair.firstIndex(of: "=") else { return .failure(.noEquals) }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty else { return .failure(.emptyName) }
        guard name.utf8.count + value.utf8.count <= maximumNameAndValue else { return .failure(.tooLong) }
        var cookie = SetCookie(name: name, value: value)
        var maxAge: Date??
        var expires: Date?
        for attribute in attributes.split(separator: ";", omittingEmptySubsequences: false) {
            let key: String
            let argument: String
            if let equals = attribute.firstIndex(of: "=") {
                key = trimmed(attribute[..<equals]).lowercased()
                argument = trimmed(attribute[attribute.index(after: equals)...])
            } else {
                key = trimmed(attribute).lowercased()
                argument = ""
            }
            guard argument.utf8.count <= maximumAttributeValue else { continue }
            switch key {
            case "expires":
                if let date = CookieDate.parse(argument) { expires = date }
            case "max-age":
                if let seconds = parseMaxAge(argument) {
                    maxAge = .some(seconds <= 0 ? Date.distantPast : now.addingTimeInterval(min(Double(seconds), 100 * 365 * 86_400)))
                }
            case "domain":
                guard !argument.isEmpty else { continue }
                cookie.domain = String((argument.hasPrefix(".") ? argument.dropFirst() : argument[...])).lowercased()
            case "path":
                cookie.path = argument.hasPrefix("/") ? argument : nil
            case "secure":
                cookie.isSecure = true
            case "httponly":
                cookie.isHTTPOnly = true
            case "samesite":
                cookie.sameSite = CookieJar.Cookie.SameSite.allCases.first { $0.rawValue.lowercased() == argument.lowercased() }
            default:
                continue
            }
        }
        cookie.expires = maxAge ?? expires
        return .success(cookie)
    }

    /// `Max-Age`: an optional `-` and digits; anything else is ignored.
    private static func parseMaxAge(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        guard let value = Int(digits) else { return text.hasPrefix("-") ? -1 : Int.max }
        return text.hasPrefix("-") ? -value : value
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
