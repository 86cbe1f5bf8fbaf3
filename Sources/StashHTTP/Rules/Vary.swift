import HTTPTypes

/// Secondary cache keys (RFC 9111 §4.1): a stored response is only reused for a request
/// whose `Vary`-named fields match those of the request that produced it.
enum Vary {
    /// The lowercased field names `fields` varies on; `nil` for `Vary: *`.
    static func names(_ fields: HTTPFields) -> [String]? {
        let members = FieldList.members(fields[values: .vary]).map { $0.lowercased() }
        if members.contains("*") { return nil }
        return Array(Set(members)).sorted()
    }

    /// The normalised request fields a response varying on `names` is keyed by.
    static func selectingFields(names: [String], request: HTTPFields) -> [String: String?] {
        var selecting: [String: String?] = [:]
        for name in names { selecting[name] = value(of: name, in: request) }
        return selecting
    }

    /// Whether `request` carries the same selecting fields as `stored`.
    static func matches(_ stored: StoredResponse, request: HTTPFields) -> Bool {
        stored.selectingFields.allSatisfy { name, value in Self.value(of: name, in: request) == value }
    }

    private static func value(of name: String, in fields: HTTPFields) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        let lines = fields[values: fieldName]
        guard unorderedCaseInsensitiveFields.contains(name), !lines.isEmpty else { return FieldList.normalized(lines) }
        return FieldList.members(lines)
            .map { $0.lowercased().filter { $0 != " " && $0 != "\t" } }
            .sorted()
            .joined(separator: ",")
    }

    /// Fields whose members are case-insensitive and weighted by `q` rather than by position
    /// (RFC 9110 §12.5.3, §12.5.4), so `en, DE` and `de, en` select the same variant.
    private static let unorderedCaseInsensitiveFields: Set<String> = ["accept-language", "accept-encoding"]
}
