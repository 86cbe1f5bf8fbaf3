import SwiftDiagnostics
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@Model`: adds `Model` and `ColumnDecodable` conformances to a struct, with an
/// `init(row:)` that reads each stored attribute by its `CodingKeys` string in declaration
/// order, and `columnNames` giving each attribute's key path its column.
/// The compiler runs it; users write the attribute (declared in `StashObjectsMacros`):
///
/// ```swift
/// @Model
/// struct Tag {
///     var id: String
///     var label: String?
/// }
/// // adds:
/// // extension Tag: StashObjects.Model, StashObjects.ColumnDecodable {
/// //     init(row: StashObjects.ObjectRow) throws {
/// //         self.id = try row.value(CodingKeys.id.stringValue)
/// //         self.label = try row.value(CodingKeys.label.stringValue)
/// //     }
/// //     static var columnNames: [PartialKeyPath<Self>: String] {
/// //         [\.id: CodingKeys.id.stringValue, \.label: CodingKeys.label.stringValue]
/// //     }
/// // }
/// ```
public struct ModelMacro: ExtensionMacro {
    /// The extension for the struct `declaration`, or the diagnostics that refuse it.
    ///
    /// ```swift
    /// let extensions = try ModelMacro.expansion(of: attribute, attachedTo: decl, providingExtensionsOf: type, conformingTo: [], in: context)
    /// ```
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let model = declaration.as(StructDeclSyntax.self) else {
            throw DiagnosticsError(diagnostics: [Diagnostic(node: node, message: ModelMacroDiagnostic.notAStruct(kind: kind(of: declaration)))])
        }
        // A hand-written `init(row:)` is kept as it is. A hand-written `init(from:)` decides
        // what each column becomes; an `init(row:)` reading the columns directly would bypass
        // it, so such a model gets no `init(row:)` and stays on the `Codable` path.
        let writesInitRow = hasInitializer(model, labelled: "row", ofType: "ObjectRow")
        let writesInitFrom = hasInitializer(model, labelled: "from", ofType: "Decoder")
        let generates = !writesInitRow && !writesInitFrom
        // The columns by key path, so that queries on a renamed property reach its column:
        // those `init(row:)` reads, or, beside a hand-written initializer, the properties the
        // `CodingKeys` of the body name (without them the keys may not exist at all). Not
        // when the struct says it itself.
        let columns: [ModelColumn]? = generates ? try ModelProperties.columns(of: model) : ModelProperties.keyedColumns(of: model)
        let writesColumnNames = !declaresStaticProperty(model, named: "columnNames") && columns != nil
        let wanted = protocols.filter { writesInitFrom ? !$0.trimmedDescription.hasSuffix("ColumnDecodable") : true }
        let relationships = ModelRelationship.declared(in: model)
        if wanted.isEmpty && !generates && !writesColumnNames && relationships.isEmpty { return [] }
        let conformances = wanted.map(\.trimmedDescription).joined(separator: ", ")
        let header = conformances.isEmpty ? "extension \(type.trimmedDescription)" : "extension \(type.trimmedDescription): \(conformances)"
        let access = model.modifiers.lazy.map(\.name.text).first { ["public", "package"].contains($0) }.map { $0 + " " } ?? ""
        var lines = ["\(header) {"]
        if generates {
            lines.append("    \(access)init(row: StashObjects.ObjectRow) throws {")
            // Each column is named by its key's string, so keys declared in an extension (or
            // synthesized) are honoured, and a key missing from them is a compile error.
            lines += (columns ?? []).map { "        self.\($0.property) = try row.value(CodingKeys.\($0.property).stringValue)" }
            lines.append("    }")
        }
        if writesColumnNames, let columns {
            lines.append("    \(access)static var columnNames: [PartialKeyPath<Self>: String] {")
            let entries = columns.map { "\\.\($0.property): CodingKeys.\($0.property).stringValue" }
            lines.append("        [" + (entries.isEmpty ? ":" : entries.joined(separator: ", ")) + "]")
            lines.append("    }")
        }
        // Each static `ToOne`/`ToMany` gets the instance property that reads it by name.
        lines += relationships.map { $0.accessor(access: access) }
        lines.append("}")
        return [try ExtensionDeclSyntax("\(raw: lines.joined(separator: "\n"))")]
    }

    /// Whether `model` declares an initializer whose one parameter is `label: …Type`.
    private static func hasInitializer(_ model: StructDeclSyntax, labelled label: String, ofType type: String) -> Bool {
        model.memberBlock.members.contains { member in
            guard let parameters = member.decl.as(InitializerDeclSyntax.self)?.signature.parameterClause.parameters,
                  parameters.count == 1, let parameter = parameters.first else { return false }
            return parameter.firstName.text == label && parameter.type.trimmedDescription.hasSuffix(type)
        }
    }

    /// Whether `model` declares `static var name` or `static let name` in its body.
    private static func declaresStaticProperty(_ model: StructDeclSyntax, named name: String) -> Bool {
        model.memberBlock.members.contains { member in
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                  variable.modifiers.contains(where: { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) }) else { return false }
            return variable.bindings.contains { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text.trimmingBackticks == name }
        }
    }

    private static func kind(of declaration: some DeclGroupSyntax) -> String {
        if declaration.is(ClassDeclSyntax.self) { return "a class" }
        if declaration.is(EnumDeclSyntax.self) { return "an enum" }
        if declaration.is(ActorDeclSyntax.self) { return "an actor" }
        if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
        if declaration.is(ExtensionDeclSyntax.self) { return "an extension" }
        return "this declaration"
    }
}
