import Foundation
import StashCore

/// Matches each named relationship with its inverse when a model's schema is resolved, and
/// finds how a named relationship is stored when it is read. Every check throws a typed
/// error naming `Model.relationship`, before the store touches its file.
enum NamedRelationships {
    /// The model's relationships with their storage settled: a `ToMany` becomes the
    /// many-to-many that creates its join table (the side whose `table.name` sorts first, or
    /// the only side) or stays the reading side; a key whose inverse is a to-one becomes
    /// unique (a one-to-one).
    static func settle(_ relationships: [Relationship], table: String, type: ObjectIdentifier, model: String) throws -> [Relationship] {
        var seen = Set<String>()
        return try relationships.map { relationship in
            guard let name = relationship.name else { return relationship }
            let key = "\(model).\(name)"
            guard !name.isEmpty, seen.insert(name).inserted else {
                throw StashError(.invalidSchema, "\(key): the relationship name is \(name.isEmpty ? "empty" : "used twice")", key: key)
            }
            var settled = relationship
            let (targetTable, declared) = relationship.targetDeclarations()
            guard let inverseName = relationship.inverse else {
                switch relationship.kind {
                case .toOne: return settled
                case .inverse where relationship.toMany:
                    settled.kind = .manyToMany
                    settled.join = JoinTable(sourceTable: table, name: name, targetTable: targetTable)
                    return settled
                default:
                    throw StashError(.invalidSchema, "\(key): a to-one without a key needs the inverse that holds it", key: key)
                }
            }
            guard let inverse = declared.first(where: { $0.name == inverseName }) else {
                throw StashError(.invalidSchema, "\(key): its inverse \(relationship.targetName).\(inverseName) is not declared (list it in \(relationship.targetName)'s entity)", key: key)
            }
            guard inverse.targetType == type, inverse.inverse == nil || inverse.inverse == name else {
                throw StashError(.invalidSchema, "\(key): its inverse \(relationship.targetName).\(inverseName) points at \(inverse.targetName).\(inverse.inverse ?? "(none)"), not back here", key: key)
            }
            switch (relationship.kind, inverse.kind) {
            case (.toOne, .inverse) where !inverse.toMany:
                settled.isUniqueKey = true
            case (.toOne, .inverse), (.inverse, .toOne):
                break
            case (.inverse, .inverse) where relationship.toMany && inverse.toMany:
                guard (targetTable, inverseName) != (table, name) else {
                    throw StashError(.invalidSchema, "\(key): a many-to-many cannot be its own inverse; declare two (following and followers)", key: key)
                }
                if (table, name) < (targetTable, inverseName) {
                    settled.kind = .manyToMany
                    settled.join = JoinTable(sourceTable: table, name: name, targetTable: targetTable)
                }
            default:
                throw StashError(
                    .invalidSchema,
                    "\(key) and its inverse \(relationship.targetName).\(inverseName) do not fit: exactly one side of a to-one holds the key, a to-one's inverse is a to-one or a to-many, a many-to-many's is a to-many",
                    key: key
                )
            }
            return settled
        }
    }

    /// Every relationship's target is a model of the store's schema.
    static func checkTargets(_ models: [ModelSchema]) throws {
        let known = Set(models.map(\.type))
        for model in models {
            for relationship in model.relationships where !known.contains(relationship.targetType) {
                let key = "\(model.modelName).\(relationship.name ?? relationship.targetName)"
                throw StashError(.unknownModel, "\(key) reaches \(relationship.targetName), which is not in the store's schema", key: key)
            }
        }
    }
}

/// A named relationship as a query reads it: its declaration, the target's schema, and the
/// path between the two tables.
struct NamedRelation: Sendable {
    let relationship: Relationship
    let source: ModelSchema
    let target: ModelSchema
    let path: RelationPath
}

extension ModelSchema {
    /// The relationship declared as `name`, with how it is stored, or
    /// ``StashCore/StashError/Code/unknownAttribute`` naming `Model.name`.
    func relation(named name: String) throws -> NamedRelation {
        if let known = namedRelations.withLock({ $0[name] }) { return known }
        guard let relationship = relationships.first(where: { $0.name == name }) else {
            throw StashError(.unknownAttribute, "\(modelName).\(name) is not a relationship listed in \(modelName)'s entity", key: "\(modelName).\(name)")
        }
        let target = try relationship.target()
        let path: RelationPath
        switch relationship.kind {
        case .toOne(let column):
            path = .sourceColumn(column)
        case .manyToMany:
            let join = try relationship.joinTable(from: self) ?? JoinTable(source: self, target: target)
            path = .join(table: join.name, source: join.sourceColumn, target: join.targetColumn)
        case .inverse:
            guard let inverse = target.relationships.first(where: { $0.name == relationship.inverse }) else {
                throw StashError(.invalidSchema, "\(modelName).\(name): its inverse is not declared", key: "\(modelName).\(name)")
            }
            switch inverse.kind {
            case .toOne(let column):
                path = .targetColumn(column)
            case .manyToMany:
                let join = try inverse.joinTable(from: target) ?? JoinTable(source: target, target: self)
                path = .join(table: join.name, source: join.targetColumn, target: join.sourceColumn)
            case .inverse:
                throw StashError(.invalidSchema, "\(modelName).\(name): neither side stores it", key: "\(modelName).\(name)")
            }
        }
        let resolved = NamedRelation(relationship: relationship, source: self, target: target, path: path)
        namedRelations.withLock { $0[name] = resolved }
        return resolved
    }
}
