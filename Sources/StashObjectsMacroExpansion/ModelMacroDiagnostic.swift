import SwiftDiagnostics

/// What `@Model` refuses, each with the reason in the user's words.
enum ModelMacroDiagnostic: DiagnosticMessage {
    case notAStruct(kind: String)
    case noID(model: String)
    case codingKeyWithoutProperty(model: String, key: String)
    case computedColumn(model: String, property: String)
    case lazyColumn(model: String, property: String)
    case wrappedColumn(model: String, property: String, attribute: String)
    case tuplePattern(model: String)
    case conditionalColumn(model: String, property: String)

    var message: String {
        switch self {
        case .notAStruct(let kind):
            "@Model applies to a struct, not to \(kind): StashObjects models are value types"
        case .noID(let model):
            "@Model struct \(model) needs a stored 'id' property (Int64? or Int? for an auto-incremented key, or a UUID or String)"
        case .codingKeyWithoutProperty(let model, let key):
            "CodingKeys.\(key) names no stored property of \(model)"
        case .computedColumn(let model, let property):
            "\(model).\(property) is a computed property, so it has no column; leave it out of CodingKeys"
        case .lazyColumn(let model, let property):
            "\(model).\(property) is lazy and cannot be a column; make it a plain stored property or leave it out of CodingKeys"
        case .wrappedColumn(let model, let property, let attribute):
            "\(model).\(property) has the attribute @\(attribute), which @Model takes for a property wrapper it cannot read into; store the value itself or leave it out of CodingKeys"
        case .tuplePattern(let model):
            "@Model cannot read a tuple-pattern property of \(model); declare one property per variable"
        case .conditionalColumn(let model, let property):
            "@Model cannot see \(model).\(property) inside #if; declare the stored property outside the #if block, or write init(row:) yourself"
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
        case .conditionalColumn: "conditionalColumn"
        }
        return MessageID(domain: "StashObjectsMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
