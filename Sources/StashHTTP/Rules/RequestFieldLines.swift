package import HTTPTypes

/// What a cache lookup reads of a request's fields: the lines of the fields a stored
/// response's `Vary` names (``Vary``), and whether it carries `Authorization` (``Reuse``, in
/// shared mode). Nothing else of them, so a server that reads requests from raw bytes can
/// answer a fresh hit without making a `String`, an `HTTPField` or an `HTTPField.Name` for
/// the fields the lookup never looks at.
///
/// `HTTPFields` is one (every caller that holds an `HTTPRequest`); a server's parser offers
/// the bytes it read as another, for ``HTTPCache/freshHit(forPlain:authority:path:fields:)``.
///
/// ```swift
/// struct HeadFields: RequestFieldLines {
///     func forEachValue(of name: HTTPField.Name, _ body: (String) -> Void) {
///         for line in lines where line.name == name.canonicalName { body(line.value) }
///     }
///     var carriesAuthorization: Bool { lines.contains { $0.name == "authorization" } }
/// }
/// ```
package protocol RequestFieldLines {
    /// Calls `body` with the value of each line of the field `name` (compared by canonical,
    /// lowercased, name), in the order the request carries them, trimmed of surrounding
    /// whitespace as `HTTPField` holds it.
    func forEachValue(of name: HTTPField.Name, _ body: (String) -> Void)

    /// Whether the request carries an `Authorization` field.
    var carriesAuthorization: Bool { get }
}

/// A request's fields as an `HTTPRequest` holds them.
extension HTTPFields: RequestFieldLines {
    package func forEachValue(of name: HTTPField.Name, _ body: (String) -> Void) {
        for field in self where field.name == name { body(field.value) }
    }

    package var carriesAuthorization: Bool { self[.authorization] != nil }
}
