import SwiftDiagnostics
import SwiftSyntax

/// A model's properties as `@Model` sees them in its declaration.
struct ModelProperty {
    /// The name as written (with backticks if any), used after `self.` and `CodingKeys.`.
    var written: String
    /// The name without backticks, as `CodingKeys` cases and diagnostics spell it.
    var name: String
    var isStored: Bool
    var isLazy: Bool
    /// The first attribute that may be a property wrapper (`@Clamped`), if any.
    var wrapper: String?
    /// A `let` with an initial value: `Codable` does not decode it.
    var isFixed: Bool
    var node: Syntax
}

/// One stored attribute `init(row:)` reads: the property, written as in the declaration,
/// which is also the name of its `CodingKeys` case.
struct ModelColumn: Equatable {
    var property: String
}

/// What `@Model` found in a struct's member block.
struct ModelMembers {
    /// The instance properties, in declaration order.
    var properties: [ModelProperty] = []
    /// Tuple patterns the `Codable` path would have to decode (`var (a, b): (Int, Int)`).
    var tuples: [Syntax] = []
    /// Stored instance properties declared inside `#if` (nested blocks too), which the macro
    /// cannot follow; a `let` with a value is left out (it is never decoded).
    var conditional: [ModelProperty] = []
}

enum ModelProperties {
    /// Capitalized attributes that are not property wrappers: a global actor the `Codable`
    /// path decodes through like a plain stored property.
    static let plainAttributes: Set<String> = ["MainActor"]

    /// The instance properties of `decl`, in declaration order, and what the macro cannot read.
    static func members(of decl: StructDeclSyntax) -> ModelMembers {
        var members = ModelMembers()
        add(decl.memberBlock.members, to: &members, conditional: false)
        return members
    }

    /// Adds the properties of `list`; inside `#if` they go to `conditional` instead.
    private static func add(_ list: MemberBlockItemListSyntax, to members: inout ModelMembers, conditional: Bool) {
        for member in list {
            if let block = member.decl.as(IfConfigDeclSyntax.self) {
                for clause in block.clauses {
                    if case .decls(let decls)? = clause.elements { add(decls, to: &members, conditional: true) }
                }
                continue
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self), !isStatic(variable) else { continue }
            let (properties, tuples) = properties(of: variable)
            members.tuples += tuples
            if conditional {
                members.conditional += properties.filter { $0.isStored && !$0.isFixed }
            } else {
                members.properties += properties
            }
        }
    }

    /// The properties one instance `var`/`let` declares, and its tuple patterns the `Codable`
    /// path would have to decode (`let (a, b) = (1, 2)` has its values and is not decoded).
    private static func properties(of variable: VariableDeclSyntax) -> (properties: [ModelProperty], tuples: [Syntax]) {
        let isLazy = variable.modifiers.contains { $0.name.tokenKind == .keyword(.lazy) }
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        var properties: [ModelProperty] = []
        var tuples: [Syntax] = []
        for binding in variable.bindings {
            guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                if !(isLet && binding.initializer != nil) { tuples.append(Syntax(binding.pattern)) }
                continue
            }
            let written = pattern.identifier.text
            properties.append(ModelProperty(
                written: written,
                name: written.trimmingBackticks,
                isStored: isStored(binding),
                isLazy: isLazy,
                wrapper: wrapper(of: variable),
                isFixed: isLet && binding.initializer != nil,
                node: Syntax(pattern)
            ))
        }
        return (properties, tuples)
    }

    private static func isStatic(_ variable: VariableDeclSyntax) -> Bool {
        variable.modifiers.contains { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) }
    }

    /// The first capitalized attribute that is not known to be plain: property wrappers are
    /// types, so they are capitalized; `@available`, `@objc` and the other built-in
    /// attributes are not.
    private static func wrapper(of variable: VariableDeclSyntax) -> String? {
        variable.attributes.lazy.compactMap { element -> String? in
            guard case .attribute(let attribute) = element else { return nil }
            let name = attribute.attributeName.trimmedDescription
            return name.first?.isUppercase == true && !plainAttributes.contains(name) ? name : nil
        }.first
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

    /// The names of the `CodingKeys` cases declared in the struct body, in order, or `nil`
    /// when the body declares none (the keys are then synthesized, or declared in an
    /// extension the macro cannot see, and name every stored property).
    static func codingKeys(of decl: StructDeclSyntax) -> [(key: String, node: Syntax)]? {
        guard let keys = decl.memberBlock.members.lazy.compactMap({ $0.decl.as(EnumDeclSyntax.self) })
            .first(where: { $0.name.text == "CodingKeys" }) else { return nil }
        return keys.memberBlock.members.flatMap { member in
            (member.decl.as(EnumCaseDeclSyntax.self)?.elements).map { $0.map { ($0.name.text.trimmingBackticks, Syntax($0)) } } ?? []
        }
    }

    /// The plain stored properties the `CodingKeys` of the body name, as columns, for the
    /// `columnNames` of a model whose initializers are hand-written (they decide what is read,
    /// so nothing is diagnosed); `nil` when the body declares no `CodingKeys`.
    static func keyedColumns(of decl: StructDeclSyntax) -> [ModelColumn]? {
        guard let keys = codingKeys(of: decl) else { return nil }
        let plain = members(of: decl).properties.filter { $0.isStored && !$0.isLazy && $0.wrapper == nil && !$0.isFixed }
        return keys.compactMap { key in plain.first { $0.name == key.key }.map { ModelColumn(property: $0.written) } }
    }

    /// The columns `init(row:)` reads, in the order the `Codable` path reads them, or the
    /// diagnostics that explain why a declaration cannot be a model.
    static func columns(of decl: StructDeclSyntax) throws -> [ModelColumn] {
        let model = decl.name.text
        let members = members(of: decl)
        let properties = members.properties
        let keys = codingKeys(of: decl)
        var diagnostics: [Diagnostic] = members.tuples.map { Diagnostic(node: $0, message: ModelMacroDiagnostic.tuplePattern(model: model)) }
        // A property inside `#if` matters only when it is a column: always with synthesized
        // keys, only when a key names it with the body's own `CodingKeys`.
        diagnostics += members.conditional.filter { property in keys.map { $0.contains { $0.key == property.name } } ?? true }.map {
            Diagnostic(node: $0.node, message: ModelMacroDiagnostic.conditionalColumn(model: model, property: $0.name))
        }
        if !properties.contains(where: { $0.name == "id" && $0.isStored }) && !members.conditional.contains(where: { $0.name == "id" }) {
            diagnostics.append(Diagnostic(node: decl.name, message: ModelMacroDiagnostic.noID(model: model)))
        }
        var columns: [ModelColumn] = []
        func add(_ property: ModelProperty, at node: Syntax) {
            if !property.isStored {
                diagnostics.append(Diagnostic(node: node, message: ModelMacroDiagnostic.computedColumn(model: model, property: property.name)))
            } else if property.isLazy {
                diagnostics.append(Diagnostic(node: node, message: ModelMacroDiagnostic.lazyColumn(model: model, property: property.name)))
            } else if let wrapper = property.wrapper {
                diagnostics.append(Diagnostic(node: node, message: ModelMacroDiagnostic.wrappedColumn(model: model, property: property.name, attribute: wrapper)))
            } else {
                columns.append(ModelColumn(property: property.written))
            }
        }
        if let keys {
            for key in keys {
                guard let property = properties.first(where: { $0.name == key.key }) else {
                    // A key naming a property inside `#if` is diagnosed there already.
                    if !members.conditional.contains(where: { $0.name == key.key }) {
                        diagnostics.append(Diagnostic(node: key.node, message: ModelMacroDiagnostic.codingKeyWithoutProperty(model: model, key: key.key)))
                    }
                    continue
                }
                // A `let` with a value is not decoded even when a key names it.
                if property.isFixed { continue }
                add(property, at: key.node)
            }
        } else {
            for property in properties where property.isStored && !property.isFixed {
                add(property, at: property.node)
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
