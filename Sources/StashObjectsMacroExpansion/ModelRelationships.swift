import SwiftSyntax

/// A named relationship a model declares as a static property (`static let card =
/// ToOne<Person, Card>(…)`), for which `@Model` writes the instance property that reads it
/// (`var card: RelatedObject<Card> { related(Self.card) }`).
struct ModelRelationship: Equatable {
    /// The property's name, as written.
    var name: String
    /// `RelatedObject` for a `ToOne`, `RelatedObjects` for a `ToMany`.
    var handle: String
    /// The target model, as written in the declaration's second generic argument.
    var target: String

    /// The instance property's declaration.
    func accessor(access: String) -> String {
        "    \(access)var \(name): StashObjects.\(handle)<\(target)> { related(Self.\(name)) }"
    }

    /// The static `ToOne`/`ToMany` properties of `model` whose types it can read (from the
    /// annotation or the initializer's generic arguments), minus those whose instance
    /// property the body already declares.
    static func declared(in model: StructDeclSyntax) -> [ModelRelationship] {
        var instanceNames = Set<String>()
        var found: [ModelRelationship] = []
        for member in model.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            let isStatic = variable.modifiers.contains { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) }
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                guard isStatic else {
                    instanceNames.insert(name)
                    continue
                }
                let type = binding.typeAnnotation?.type.as(IdentifierTypeSyntax.self)
                let call = binding.initializer?.value.as(FunctionCallExprSyntax.self)?.calledExpression.as(GenericSpecializationExprSyntax.self)
                let base = type?.name.text ?? call?.expression.as(DeclReferenceExprSyntax.self)?.baseName.text
                let arguments = type?.genericArgumentClause?.arguments.map(\.argument.trimmedDescription)
                    ?? call?.genericArgumentClause.arguments.map(\.argument.trimmedDescription)
                guard let base, let arguments, arguments.count == 2 else { continue }
                switch base {
                case "ToOne": found.append(ModelRelationship(name: name, handle: "RelatedObject", target: arguments[1]))
                case "ToMany": found.append(ModelRelationship(name: name, handle: "RelatedObjects", target: arguments[1]))
                default: continue
                }
            }
        }
        return found.filter { !instanceNames.contains($0.name) }
    }
}
