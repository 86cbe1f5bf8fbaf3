import Foundation
import StashCore

extension ObjectEntity {
    /// A to-one relationship: the attribute holds the id of a `target` object, as a real
    /// SQLite foreign key. Its inverse (the to-many side, every object of this model
    /// pointing at one target) is read with ``ObjectReader/related(_:of:)`` from the target.
    /// `onDelete` says what deleting the target does to the objects pointing at it. Left
    /// out, it is ``ObjectSchema/DeleteRule/nullify`` for an optional attribute and ``ObjectSchema/DeleteRule/deny``
    /// for a non-optional one (which cannot be set to `nil`).
    ///
    /// ```swift
    /// struct Card: Model {
    ///     var id: Int64?
    ///     var number: String
    ///     var ownerID: Int64
    ///     static let entity = ObjectEntity<Card>().belongsTo(\.ownerID, Person.self, onDelete: .cascade)
    /// }
    /// ```
    ///
    /// `.nullify` on a non-optional attribute is refused when the store opens, before
    /// anything is written: ``StashCore/StashError/Code/invalidSchema`` naming model and attribute.
    public func belongsTo<V: Storable, T: Model>(_ keyPath: KeyPath<M, V>, _ target: T.Type, onDelete rule: ObjectSchema.DeleteRule? = nil) -> Self {
        var copy = self
        guard let name = PropertyNames.name(of: keyPath) else {
            copy.unknownKeyPaths.append("\(keyPath)")
            return copy
        }
        copy.relationships.append(Relationship(
            kind: .toOne(column: name), targetType: ObjectIdentifier(target), targetName: "\(T.self)",
            target: { try ModelSchema.of(T.self) }, declaredDeleteRule: rule
        ))
        return copy
    }

    /// A many-to-many relationship with `target`, through a join table created for you
    /// (`<table>_<targetTable>`); deleting either object removes its links. Link objects
    /// with ``ObjectTransaction/link(_:_:)-(A,_)``, read them with ``ObjectReader/related(_:of:)``
    /// from either side.
    ///
    /// ```swift
    /// static let entity = ObjectEntity<Article>().manyToMany(Tag.self)
    /// ```
    public func manyToMany<T: Model>(_ target: T.Type) -> Self {
        var copy = self
        copy.relationships.append(Relationship(
            kind: .manyToMany, targetType: ObjectIdentifier(target), targetName: "\(T.self)",
            target: { try ModelSchema.of(T.self) }, declaredDeleteRule: .cascade
        ))
        return copy
    }
}
