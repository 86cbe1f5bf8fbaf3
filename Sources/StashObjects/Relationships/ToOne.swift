import Foundation
import StashCore

/// A named relationship to at most one object of `Target`, declared as a static property of
/// `Source` and listed in its entity (``ObjectEntity/relationships(_:)``).
///
/// Either this side holds the key (`key:`, a real SQLite foreign key, with its delete rule),
/// or the target holds it and this is its inverse (a one-to-one: the target's key gets a
/// `UNIQUE` index without a hand-written `unique`).
///
/// ```swift
/// struct Card: Model {
///     var id: Int64?
///     var number: String
///     var ownerID: Int64
///     static let person = ToOne<Card, Person>("person", key: \.ownerID, inverse: "card", onDelete: .cascade)
///     static let entity = ObjectEntity<Card>().relationships(person)
///     var person: RelatedObject<Person> { related(Self.person) }   // @Model writes this line
/// }
/// struct Person: Model {
///     var id: Int64?
///     var name: String
///     static let card = ToOne<Person, Card>("card", inverse: "person")
///     static let entity = ObjectEntity<Person>().relationships(card)
///     var card: RelatedObject<Card> { related(Self.card) }
/// }
/// let card = try reader.fetch(ada.card)        // Card?, one statement
/// let cardholders = Person.query().filter(Person.card.number == "4400")   // a path in a filter
/// ```
///
/// Reading one costs one SQL statement (by primary key or by the indexed key column); a
/// prefetch (``ObjectQuery/including(_:_:)``) costs one statement per relationship for all
/// the objects. The declaration is checked when the store opens: a name used twice, an
/// inverse that does not exist or does not point back, a target outside the store's schema,
/// `nullify` on a non-optional key are ``StashCore/StashError/Code/invalidSchema`` (or
/// ``StashCore/StashError/Code/unknownModel``), before the file is touched.
///
/// Member access on it builds key paths across the relationship: `Person.card.number` is
/// the card's number seen from a person, `Card.person.parent.name` goes two steps.
@dynamicMemberLookup
public struct ToOne<Source: Model, Target: Model>: ObjectRelationship {
    let declaration: Relationship
    /// The key's value in a source object, when this side holds the key.
    let keyValue: (@Sendable (Source) -> ObjectStore.StoredValue)?

    /// The side that holds the key: `key` stores the target's id. `onDelete` says what
    /// deleting the target does to this object (left out: `nullify` for an optional key,
    /// `deny` for a non-optional one).
    ///
    /// ```swift
    /// static let parent = ToOne<Person, Person>("parent", key: \.parentID, inverse: "children", onDelete: .nullify)
    /// ```
    public init<V: Storable>(_ name: String, key: KeyPath<Source, V>, inverse: String? = nil, onDelete rule: ObjectSchema.DeleteRule? = nil) {
        let column = PropertyNames.name(of: key)
        nonisolated(unsafe) let path = key
        keyValue = { $0[keyPath: path].storedValue }
        var declaration = Relationship.named(name, Source.self, Target.self, kind: .toOne(column: column ?? ""), inverse: inverse, toMany: false)
        declaration.declaredDeleteRule = rule
        if column == nil { declaration.unknownKey = "\(key)" }
        declaration.getKey = { ($0 as? Source)?[keyPath: path].storedValue }
        if let writable = key as? WritableKeyPath<Source, V> {
            nonisolated(unsafe) let writable = writable
            declaration.setKey = { object, value in
                guard var object = object as? Source, let key = V(storedValue: value) else { return nil }
                object[keyPath: writable] = key
                return object
            }
        }
        self.declaration = declaration
    }

    /// The side without the key: the inverse of the target's to-one `inverse`, which holds
    /// it. One target object at most points here (a one-to-one).
    ///
    /// ```swift
    /// static let card = ToOne<Person, Card>("card", inverse: "person")
    /// ```
    public init(_ name: String, inverse: String) {
        declaration = Relationship.named(name, Source.self, Target.self, kind: .inverse, inverse: inverse, toMany: false)
        keyValue = nil
    }

    /// An attribute of the target, seen from the source: for filters and sorts.
    ///
    /// ```swift
    /// Person.query().filter(Person.card.number == "4400").sorted(Person.card.number)
    /// ```
    public subscript<V: Storable>(dynamicMember attribute: KeyPath<Target, V>) -> AttributePath<Source, V> {
        AttributePath(hops: [hop], attribute: attribute)
    }

    /// One more to-one step.
    ///
    /// ```swift
    /// Card.query().filter(Card.person.parent.name == "Ada")
    /// ```
    public subscript<Next: Model>(dynamicMember next: KeyPath<Target.Type, ToOne<Target, Next>>) -> ToOnePath<Source, Next> {
        ToOnePath(hops: [hop, Target.self[keyPath: next].hop])
    }

    var hop: RelationHop { RelationHop(source: Source.self, name: declaration.name ?? "") }
}

/// Several to-one steps from `Source`, ending at `Target`: `Card.person.parent`. Member
/// access continues the path (see ``ToOne``).
///
/// ```swift
/// Card.query().filter(Card.person.parent.name == "Ada")
/// ```
@dynamicMemberLookup
public struct ToOnePath<Source: Model, Target: Model>: Sendable {
    let hops: [RelationHop]

    /// An attribute at the end of the path.
    ///
    /// ```swift
    /// Card.person.parent.age > 60
    /// ```
    public subscript<V: Storable>(dynamicMember attribute: KeyPath<Target, V>) -> AttributePath<Source, V> {
        AttributePath(hops: hops, attribute: attribute)
    }

    /// One more to-one step.
    ///
    /// ```swift
    /// Card.person.parent.parent.name
    /// ```
    public subscript<Next: Model>(dynamicMember next: KeyPath<Target.Type, ToOne<Target, Next>>) -> ToOnePath<Source, Next> {
        ToOnePath<Source, Next>(hops: hops + [Target.self[keyPath: next].hop])
    }
}

/// One step of a path: the relationship `name` of the model `source`.
struct RelationHop: Sendable {
    let sourceName: String
    let schema: @Sendable () throws -> ModelSchema
    let name: String

    init<M: Model>(source: M.Type, name: String) {
        sourceName = "\(M.self)"
        schema = { try ModelSchema.of(M.self) }
        self.name = name
    }
}
