import SwiftDiagnostics
import SwiftParser
import SwiftSyntax

/// A model's properties as `@Model` sees them in its declaration.
struct ModelProperty {
    /// The name as written (with backticks if any), used after `self.`.
    var written: String
    /// The name without backticks: the column name unless `CodingKeys` renames it.
    var name: String
    var isStored: Bool
    var isLazy: Bool
    /// The first attribute that looks like a property wrapper (`@Clamped`), if any.
    var wrapper: String?
    /// A `let` with an initial value: `Codable` does not decode it.
    var isFixed: Bool
    var node: Syntax
}

/// One stored attribute `init(row:)` reads: the property and the name of its column.
struct ModelColumn: Equatable {
    var property: String
    var column: String
}

enum ModelProperties {
    /// The instance properties of `decl`, in declaration order.
    static func properties(of decl: StructDeclSyntax) -> (properties: [ModelProperty], tuples: [Syntax]) {
        var properties: [ModelProperty] = []
        var tuples: [Syntax] = []
        for member in decl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            let modifiers = variable.modifiers.map(\.name.tokenKind)
            if modifiers.contains(.keyword(.static)) || modifiers.contains(.keyword(.class)) { continue }
            let isLazy = modifiers.contains(.keyword(.lazy))
            let wrapper = variable.attributes.compactMap { element -> String? in
                guard case .attribute(let attribute) = element else { return nil }
                let name = attribute.attributeName.trimmedDescription
                return name.first?.isUppercase == true ? name : nil
            }.first
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for binding in variable.bindings {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    tuples.append(Syntax(binding.pattern))
                    continue
                }
                let written = pattern.identifier.text
                properties.append(ModelProperty(
                    written: written,
                    name: written.trimmingBackticks,
                    isStored: isStored(binding),
                    isLazy: isLazy,
                    wrapper: wrapper,
                    isFixed: isLet && binding.initializer != nil,
                    node: Syntax(pattern)
                ))
            }
        }
        return (properties, tuples)
    }

    /// A binding without accessors, or with observers only (`willSet`/`didSet`), has storage.
    static func isStored(_ binding: PatternBindingSyntax) -> Bool {
        guard let accessors = binding.accessorBlock?.accessors else { return true }
        switch accessors {
        case .getter: return false
        case .accessors(let list):
            return list.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
        }
    }

    /// The `CodingKeys` enum's cases in order, as (case name, column name), or `nil` when the
    /// struct declares none (the synthesized keys are then the stored properties).
    static func codingKeys(of decl: StructDeclSyntax, model: String) throws -> [(key: String, column: String, node: Syntax)]? {
        guard let keys = decl.memberBlock.members.lazy.compactMap({ $0.decl.as(EnumDeclSyntax.self) })
            .first(where: { $0.name.text == "CodingKeys" }) else { return nil }
        var cases: [(key: String, column: String, node: Syntax)] = []
        for member in keys.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                let key = element.name.text.trimmingBackticks
                var column = key
                // A string raw value renames the column (escapes and raw strings as their
                // value); an integer one does not (the key's string value is its name).
                if let raw = element.rawValue?.value, !raw.is(IntegerLiteralExprSyntax.self) {
                    guard let literal = raw.as(StringLiteralExprSyntax.self), let value = literal.representedLiteralValue else {
                        throw DiagnosticsError(diagnostics: [Diagnostic(node: raw, message: ModelMacroDiagnostic.codingKeyNotLiteral(model: model, key: key))])
                    }
                    column = value
                }
                cases.append((key, column, Syntax(element)))
            }
        }
        return cases
    }

    /// The columns `init(row:)` reads, in the order the `Codable` path reads them, or the
    /// diagnostics that explain why a declaration cannot be a model.
    static func columns(of decl: StructDeclSyntax) throws -> [ModelColumn] {
        let model = decl.name.text
        let (properties, tuples) = properties(of: decl)
        var diagnostics: [Diagnostic] = tuples.map { Diagnostic(node: $0, message: ModelMacroDiagnostic.tuplePattern(model: model)) }
        if !properties.contains(where: { $0.name == "id" }) {
            diagnostics.append(Diagnostic(node: decl.name, message: ModelMacroDiagnostic.noID(model: model)))
        }
        var columns: [ModelColumn] = []
        func add(_ property: ModelProperty, column: String, at node: Syntax) {
            if !property.isStored {
                diagnostics.append(Diagnostic(node: node, message: ModelMacroDiagnostic.computedColumn(model: model, property: property.name)))
            } else if property.isLazy {
                diagnostics.append(Diagnostic(node: node, message: ModelMacroDiagnostic.lazyColumn(model: model, property: property.name)))
            } else if let wrapper = property.wrapper {
                diagnostics.append(Diagnostic(node: node, message: ModelMacroDiagnostic.wrappedColumn(model: model, property: property.name, wrapper: wrapper)))
            } else {
                columns.append(ModelColumn(property: property.written, column: column))
            }
        }
        if let keys = try codingKeys(of: decl, model: model) {
            for key in keys {
                guard let property = properties.first(where: { $0.name == key.key }) else {
                    diagnostics.append(Diagnostic(node: key.node, message: ModelMacroDiagnostic.codingKeyWithoutProperty(model: model, key: key.key)))
                    continue
                }
                // A `let` with a value is not decoded even when a key names it.
                if property.isFixed { continue }
                add(property, column: key.column, at: key.node)
            }
        } else {
            for property in properties where property.isStored && !property.isFixed {
                add(property, column: property.name, at: property.node)
            }
        }
        if !diagnostics.isEmpty { throw DiagnosticsError(diagnostics: diagnostics) }
        return columns
    }
}

extension String {
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
