import Foundation
import StashCore

/// A named relationship to any number of `Target` objects, declared as a static property of
/// `Source` and listed in its entity (``ObjectEntity/relationships(_:)``).
///
/// Its `inverse` decides how it is stored: the inverse of a key-holding ``ToOne`` reads that
/// key (a one-to-many); the inverse of another `ToMany` (or none) is a many-to-many through a
/// join table `<table>_<name>` created for you, links removed with either object.
///
/// ```swift
/// struct Person: Model {
///     var id: Int64?
///     var name: String
///     var parentID: Int64?
///     static let parent = ToOne<Person, Person>("parent", key: \.parentID, inverse: "children", onDelete: .nullify)
///     static let children = ToMany<Person, Person>("children", inverse: "parent")
///     static let clubs = ToMany<Person, Club>("clubs", inverse: "members")     // many-to-many
///     static let entity = ObjectEntity<Person>().relationships(parent, children, clubs)
///     var children: RelatedObjects<Person> { related(Self.children) }        // @Model writes these
/// }
/// let kids = try reader.fetch(ada.children)                                  // [Person], one statement
/// let eldest = try reader.fetch(ada.children.sorted(\.age, .descending).limit(1))
/// let busy = Person.query().filter(.count(\.clubs) > 3)
/// ```
///
/// Reading one costs one SQL statement; a prefetch costs one per relationship for all the
/// objects (``ObjectQuery/including(_:_:)``). Link a many-to-many with
/// ``ObjectTransaction/link(_:_:)-(_,T)``.
public struct ToMany<Source: Model, Target: Model>: ObjectRelationship {
    let declaration: Relationship

    /// A to-many relationship whose other side is the target's relationship `inverse`: a
    /// ``ToOne`` holding the key (one-to-many) or a `ToMany` (many-to-many). Without
    /// `inverse`, a many-to-many read from this side only.
    ///
    /// ```swift
    /// static let cards = ToMany<Person, Card>("cards", inverse: "holder")
    /// static let tags = ToMany<Article, Tag>("tags", inverse: "articles")
    /// ```
    public init(_ name: String, inverse: String? = nil) {
        declaration = Relationship.named(name, Source.self, Target.self, kind: .inverse, inverse: inverse, toMany: true)
    }

    var hop: RelationHop { RelationHop(source: Source.self, name: declaration.name ?? "") }
}

/// What ``ToOne`` and ``ToMany`` have in common: a named relationship from `Source` to
/// `Target`, listed in `Source`'s entity.
///
/// ```swift
/// static let entity = ObjectEntity<Person>().relationships(card, children, clubs)
/// ```
public protocol ObjectRelationship<Source>: Sendable {
    /// The model that declares the relationship.
    associatedtype Source: Model
    /// The model it reaches.
    associatedtype Target: Model
}

extension Relationship {
    /// A named relationship's declaration, before its inverse is matched.
    static func named<S: Model, T: Model>(_ name: String, _ source: S.Type, _ target: T.Type, kind: Kind, inverse: String?, toMany: Bool) -> Relationship {
        var relationship = Relationship(
            kind: kind, targetType: ObjectIdentifier(T.self), targetName: "\(T.self)",
            target: { try ModelSchema.of(T.self) }, declaredDeleteRule: nil
        )
        relationship.name = name
        relationship.inverse = inverse
        relationship.toMany = toMany
        relationship.targetDeclarations = { (T.entity.table, T.entity.relationships) }
        return relationship
    }
}

extension ObjectEntity {
    /// Lists the model's named relationships (its static ``ToOne`` and ``ToMany``
    /// properties), so that the store creates their keys, indexes and join tables and
    /// checks them when it opens.
    ///
    /// ```swift
    /// static let entity = ObjectEntity<Person>(table: "person").relationships(card, parent, children)
    /// ```
    public func relationships(_ relationships: any ObjectRelationship<M>...) -> Self {
        var copy = self
        for relationship in relationships {
            guard let declared = (relationship as? any NamedDeclaration)?.declaration else { continue }
            if let key = declared.unknownKey { copy.unknownKeyPaths.append(key) }
            copy.relationships.append(declared)
        }
        return copy
    }
}

/// ``ToOne`` and ``ToMany``, read the same way inside the module.
protocol NamedDeclaration {
    var declaration: Relationship { get }
}

extension ToOne: NamedDeclaration {}
extension ToMany: NamedDeclaration {}
