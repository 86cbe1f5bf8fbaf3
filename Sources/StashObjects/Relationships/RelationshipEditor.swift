import Foundation
import StashCore

/// A row of a many-to-many's join table, named the same whichever side links it: its
/// columns in name order, each with the model whose ids it holds.
struct JoinLink: Hashable, Sendable {
    var table: String
    var columns: [String]
    var types: [ObjectIdentifier]
    var ids: [ObjectStore.StoredValue]

    init(table: String, source: (column: String, type: ObjectIdentifier, id: ObjectStore.StoredValue), target: (column: String, type: ObjectIdentifier, id: ObjectStore.StoredValue)) {
        let sides = [source, target].sorted { $0.column < $1.column }
        self.table = table
        columns = sides.map(\.column)
        types = sides.map(\.type)
        ids = sides.map(\.id)
    }

    var insertSQL: String {
        "INSERT OR IGNORE INTO \(SQL.quote(table))(\(SQL.quote(columns[0])), \(SQL.quote(columns[1]))) VALUES (?, ?)"
    }

    var deleteSQL: String {
        "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(columns[0])) = ? AND \(SQL.quote(columns[1])) = ?"
    }
}

/// Where relating objects by a named relationship lands: a context (pending changes) or a
/// transaction (rows). It writes keys and join rows; the rules of which side holds what,
/// and what a one-to-one releases, are this file's extension, shared by both.
protocol RelationshipEditor {
    var store: ObjectStore { get }
    /// Sets the key `declaration` holds on `object` to `value`; with `onlyIf`, only when
    /// the key holds that value now.
    func setKey<M: Model>(_ object: M, _ declaration: Relationship, to value: ObjectStore.StoredValue, onlyIf: ObjectStore.StoredValue?) throws
    /// The objects of `type` whose `column` holds `value`, as the editor sees them.
    func holders<M: Model>(_ type: M.Type, column: String, value: ObjectStore.StoredValue) throws -> [M]
    /// Adds (`linked`) or removes a join row.
    func setLink(_ link: JoinLink, linked: Bool) throws
}

extension RelationshipEditor {
    /// `related` (a to-one of its object) reaches `target` afterwards, or nothing. In a
    /// one-to-one, the object that reached `target` before is released (its key set to
    /// null), as Core Data does.
    func set<T: Model>(_ related: RelatedObject<T>, to target: T?) throws {
        try set(related.source, related.origin.name, to: target)
    }

    private func set<S: Model, T: Model>(_ source: S, _ name: String, to target: T?) throws {
        let relation = try store.schema(for: S.self).relation(named: name)
        switch relation.path {
        case .sourceColumn(let column):
            let targetID = target?.id.storedValue ?? .null
            if relation.relationship.isUniqueKey, targetID != .null {
                for holder in try holders(S.self, column: column, value: targetID) where holder.id.storedValue != source.id.storedValue {
                    try release(holder, relation.relationship, from: targetID)
                }
            }
            try setKey(source, relation.relationship, to: targetID, onlyIf: nil)
        case .targetColumn(let column):
            let inverse = try inverseKey(relation)
            for holder in try holders(T.self, column: column, value: source.id.storedValue) where holder.id.storedValue != target?.id.storedValue {
                try release(holder, inverse, from: source.id.storedValue)
            }
            if let target { try setKey(target, inverse, to: source.id.storedValue, onlyIf: nil) }
        case .join:
            throw StashError(.unknownAttribute, "\(relation.source.modelName).\(name) is a to-many: link and unlink its objects", key: "\(relation.source.modelName).\(name)")
        }
    }

    /// Adds `target` to the to-many `related`: sets its key to the object's id, or adds
    /// the join row of a many-to-many.
    func link<T: Model>(_ related: RelatedObjects<T>, _ target: T) throws {
        try link(related.source, related.origin.name, target, linked: true)
    }

    /// Takes `target` out of the to-many `related`: sets its key to null (when it points
    /// at the object), or removes the join row.
    func unlink<T: Model>(_ related: RelatedObjects<T>, _ target: T) throws {
        try link(related.source, related.origin.name, target, linked: false)
    }

    private func link<S: Model, T: Model>(_ source: S, _ name: String, _ target: T, linked: Bool) throws {
        let relation = try store.schema(for: S.self).relation(named: name)
        switch relation.path {
        case .targetColumn:
            let inverse = try inverseKey(relation)
            if linked {
                try setKey(target, inverse, to: source.id.storedValue, onlyIf: nil)
            } else {
                try setKey(target, inverse, to: .null, onlyIf: source.id.storedValue)
            }
        case .join(let table, let sourceColumn, let targetColumn):
            try setLink(JoinLink(
                table: table,
                source: (sourceColumn, relation.source.type, source.id.storedValue),
                target: (targetColumn, relation.target.type, target.id.storedValue)
            ), linked: linked)
        case .sourceColumn:
            throw StashError(.unknownAttribute, "\(relation.source.modelName).\(name) is a to-one: set it", key: "\(relation.source.modelName).\(name)")
        }
    }

    /// The key the target's side holds for the inverse of `relation`.
    private func inverseKey(_ relation: NamedRelation) throws -> Relationship {
        let name = relation.relationship.inverse ?? ""
        guard let inverse = relation.target.relationships.first(where: { $0.name == name }) else {
            throw StashError(.invalidSchema, "\(relation.target.modelName).\(name) is not declared", key: "\(relation.target.modelName).\(name)")
        }
        return inverse
    }

    /// Sets a one-to-one's key on `holder` to null, because another object takes its place.
    private func release<M: Model>(_ holder: M, _ declaration: Relationship, from value: ObjectStore.StoredValue) throws {
        try setKey(holder, declaration, to: .null, onlyIf: value)
    }
}

extension Relationship {
    /// `object` with this to-one's key set to `value`, or a typed error naming the
    /// relationship: null for a key that is not optional, a key that is a `let`.
    func settingKey<M: Model>(of object: M, to value: ObjectStore.StoredValue) throws -> M {
        let key = "\(M.self).\(name ?? "")"
        guard let setKey else {
            throw StashError(.unsupportedValue, "\(key): its key is not a `var`, so it cannot be set through the relationship", key: key)
        }
        guard let changed = setKey(object, value) as? M else {
            throw StashError(
                .unsupportedValue,
                value == .null
                    ? "\(key): its key is not optional, so \(M.self) id \(object.id.storedValue) cannot be left without one; relate it to another object or delete it"
                    : "\(key): its key cannot hold \(value)",
                key: key
            )
        }
        return changed
    }

    /// The value of this to-one's key in `object`.
    func keyValue<M: Model>(of object: M) -> ObjectStore.StoredValue? {
        getKey?(object)
    }
}
