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
    static func selectingFields(names: [String], request: some RequestFieldLines) -> [String: String?] {
        var selecting: [String: String?] = [:]
        for name in names { selecting[name] = value(of: name, in: request) }
        return selecting
    }

    /// A stored response's selecting fields as a lookup matches them: field names made once,
    /// when the response is stored, not on every lookup.
    ///
    /// The first field (nearly always the only one, and short) is held inline, so that
    /// matching a variant reads no memory beyond the stored response itself.
    struct Selection: Sendable {
        typealias Field = (name: HTTPField.Name?, value: String?)
        /// The field's name (`nil` when it is not a valid name, which no request carries)
        /// and its normalised value in the request that produced the response.
        let first: Field?
        let others: [Field]

        init(_ selectingFields: [String: String?]) {
            let fields = selectingFields.sorted { $0.key < $1.key }.map { (HTTPField.Name($0.key), $0.value) }
            first = fields.first
            others = Array(fields.dropFirst())
        }
    }

    /// One request's fields matched against several variants: each field is read (from
    /// `request`, only when a variant varies on it) and normalised once. The first field a
    /// lookup needs (nearly always the only one) is kept without an array.
    struct Selector<Fields: RequestFieldLines> {
        let request: Fields
        private var first: (name: HTTPField.Name, value: String?)?
        private var others: [(name: HTTPField.Name, value: String?)] = []

        init(_ request: Fields) { self.request = request }

        mutating func matches(_ stored: StoredResponse) -> Bool {
            let selection = stored.selection
            guard let first = selection.first else { return true }
            if value(of: first.name) != first.value { return false }
            for field in selection.others where value(of: field.name) != field.value { return false }
            return true
        }

        private mutating func value(of name: HTTPField.Name?) -> String? {
            guard let name else { return nil }
            guard let first else {
                let value = Vary.value(of: name, in: request)
                self.first = (name, value)
                return value
            }
            if first.name == name { return first.value }
            if let known = others.first(where: { $0.name == name }) { return known.value }
            let value = Vary.value(of: name, in: request)
            others.append((name, value))
            return value
        }
    }

    private static func value(of name: String, in fields: some RequestFieldLines) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return value(of: fieldName, in: fields)
    }

    /// The value of the field `name` in `fields` as a variant is keyed by: its lines joined
    /// and normalised (``FieldList``), the members of `Accept-Language` and
    /// `Accept-Encoding` lowercased and sorted; `nil` when `fields` has no such line.
    private static func value(of name: HTTPField.Name, in fields: some RequestFieldLines) -> String? {
        var single: String?
        var several: [String] = []
        fields.forEachValue(of: name) { value in
            if let first = single {
                if several.isEmpty { several.append(first) }
                several.append(value)
            } else {
                single = value
            }
        }
        guard let single else { return nil }
        // Accept-Language and Accept-Encoding members are case-insensitive and weighted by
        // `q` rather than by position (RFC 9110 §12.5.3, §12.5.4), so `en, DE` and `de, en`
        // select the same variant.
        let unordered = name == .acceptLanguage || name == .acceptEncoding
        if several.isEmpty, isPlainMember(single, lowercaseOnly: unordered) { return single }
        let lines = several.isEmpty ? [single] : several
        guard unordered else { return FieldList.normalized(lines) }
        return FieldList.members(lines)
            .map { $0.lowercased().filter { $0 != " " && $0 != "\t" } }
            .sorted()
            .joined(separator: ",")
    }

    /// Whether `line` is one list member that normalisation leaves as it is: no comma, no
    /// whitespace at either end (none at all, and no uppercase ASCII, when `lowercaseOnly`).
    private static func isPlainMember(_ line: String, lowercaseOnly: Bool) -> Bool {
        let utf8 = line.utf8
        guard let first = utf8.first, let last = utf8.last,
              first != 0x20, first != 0x09, last != 0x20, last != 0x09 else { return false }
        for byte in utf8 {
            if byte == UInt8(ascii: ",") || byte >= 0x80 { return false }
            if lowercaseOnly, byte == 0x20 || byte == 0x09 || (byte >= 0x41 && byte <= 0x5A) { return false }
        }
        return true
    }
}
