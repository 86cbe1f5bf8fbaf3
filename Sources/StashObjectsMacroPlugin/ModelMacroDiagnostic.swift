import SwiftDiagnostics

/// What `@Model` refuses, each with the reason in the user's words.
enum ModelMacroDiagnostic: DiagnosticMessage {
    case notAStruct(kind: String)
    case noID(model: String)
    case codingKeyWithoutProperty(model: String, key: String)
    case computedColumn(model: String, property: String)
    case lazyColumn(model: String, property: String)
    case wrappedColumn(model: String, property: String, wrapper: String)
    case tuplePattern(model: String)
    case codingKeyNotLiteral(model: String, key: String)

    var message: String {
        switch self {
        case .notAStruct(let kind):
            "@Model applies to a struct, not to \(kind): StashObjects models are value types"
        case .noID(let model):
            "@Model struct \(model) needs an 'id' property (Int64? or Int? for an auto-incremented key, or a UUID or String)"
        case .codingKeyWithoutProperty(let model, let key):
            "CodingKeys.\(key) names no stored property of \(model)"
        case .computedColumn(let model, let property):
            "\(model).\(property) is a computed property, so it has no column; leave it out of CodingKeys"
        case .lazyColumn(let model, let property):
            "\(model).\(property) is lazy and cannot be a column; make it a plain stored property or leave it out of CodingKeys"
        case .wrappedColumn(let model, let property, let wrapper):
            "\(model).\(property) uses the property wrapper @\(wrapper), which @Model cannot read into; store the value itself or leave it out of CodingKeys"
        case .tuplePattern(let model):
            "@Model cannot read a tuple-pattern property of \(model); declare one property per variable"
        case .codingKeyNotLiteral(let model, let key):
            "CodingKeys.\(key) of \(model) needs a string literal raw value for @Model to know its column"
        }
    }

    var diagnosticID: MessageID {
        let id = switch self {
        case .notAStruct: "notAStruct"
        case .noID: "noID"
        case .codingKeyWithoutProperty: "codingKeyWithoutProperty"
        case .computedColumn: "computedColumn"
        case .lazyColumn: "lazyColumn"
        case .wrappedColumn: "wrappedColumn"
        case .tuplePattern: "tuplePattern"
        case .codingKeyNotLiteral: "codingKeyNotLiteral"
        }
        return MessageID(domain: "StashObjectsMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
