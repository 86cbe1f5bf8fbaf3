import Foundation
import StashCore

/// The object a to-one relationship of one object reaches, not read yet: hand it to the
/// reader or transaction you are in (one statement), or to the ``ObjectGraph`` a prefetch
/// returned (no statement).
///
/// ```swift
/// let card = try reader.fetch(ada.card)          // Card?
/// let owner = try store.fetch(card!.person)      // Person?, in a read of its own
/// ```
public struct RelatedObject<Target: Model>: Sendable {
    /// The query that reads it: the target objects the relationship links to the object.
    /// Built when asked, so that a handle read from an ``ObjectGraph`` costs no SQL text.
    ///
    /// ```swift
    /// let exists = try reader.exists(ada.card.query)
    /// ```
    public var query: ObjectQuery<Target> { makeQuery(origin) }
    let origin: RelationOrigin
    let makeQuery: @Sendable (RelationOrigin) -> ObjectQuery<Target>
    /// The object the handle was made from: what a context or a transaction relates.
    let source: any Model
}

/// The objects a to-many relationship of one object reaches, not read yet. Fetch them as
/// they are (one statement, or none from an ``ObjectGraph``), or filter and sort them
/// further, which gives an ``ObjectQuery``.
///
/// ```swift
/// let cards = try reader.fetch(ada.cards)                                   // [Card]
/// let gold = try reader.fetch(ada.cards.filter(\.number >= "9").sorted(\.number))
/// let howMany = try reader.count(ada.cards.query)
/// ```
public struct RelatedObjects<Target: Model>: Sendable {
    /// The query that reads them, in id order, built when asked.
    ///
    /// ```swift
    /// try reader.fetch(ada.cards.query.limit(3))
    /// ```
    public var query: ObjectQuery<Target> { makeQuery(origin) }
    let origin: RelationOrigin
    let makeQuery: @Sendable (RelationOrigin) -> ObjectQuery<Target>
    /// The object the handle was made from: what a context or a transaction relates.
    let source: any Model

    /// Only those passing `filter`.
    ///
    /// ```swift
    /// ada.cards.filter(.hasPrefix(\.number, "44"))
    /// ```
    public func filter(_ filter: ObjectFilter<Target>) -> ObjectQuery<Target> {
        query.filter(filter)
    }

    /// Sorted by the attribute (before the id order).
    ///
    /// ```swift
    /// ada.children.sorted(\.age, .descending)
    /// ```
    public func sorted<V: Storable>(_ keyPath: KeyPath<Target, V>, _ direction: ObjectQuery<Target>.Direction = .ascending) -> ObjectQuery<Target> {
        query.sorted(keyPath, direction)   // then by id
    }
}

/// Which object's which relationship a handle reads: what a prefetched ``ObjectGraph`` looks
/// up, and what ``ObjectTransaction/link(_:_:)`` links.
struct RelationOrigin: Sendable, Hashable {
    let source: ObjectIdentifier
    let name: String
    /// The key a prefetch files the related objects under: the source's id, or for the side
    /// holding a key, the key's value (the target's id).
    let lookup: ObjectStore.StoredValue
    /// The source object's id.
    let sourceID: ObjectStore.StoredValue
}

extension Model {
    /// The object this one's to-one relationship reaches, to read with a reader, a
    /// transaction or a prefetched graph. `@Model` writes an instance property for each
    /// static relationship; a plain model writes it as below.
    ///
    /// ```swift
    /// var card: RelatedObject<Card> { related(Self.card) }
    /// ```
    public func related<T: Model>(_ relationship: ToOne<Self, T>) -> RelatedObject<T> {
        let name = relationship.declaration.name ?? ""
        let lookup = relationship.keyValue.map { $0(self) } ?? id.storedValue
        return RelatedObject(
            origin: RelationOrigin(source: ObjectIdentifier(Self.self), name: name, lookup: lookup, sourceID: id.storedValue),
            makeQuery: Self.relatedQuery,
            source: self
        )
    }

    /// The objects this one's to-many relationship reaches.
    ///
    /// ```swift
    /// var cards: RelatedObjects<Card> { related(Self.cards) }
    /// ```
    public func related<T: Model>(_ relationship: ToMany<Self, T>) -> RelatedObjects<T> {
        let name = relationship.declaration.name ?? ""
        return RelatedObjects(
            origin: RelationOrigin(source: ObjectIdentifier(Self.self), name: name, lookup: id.storedValue, sourceID: id.storedValue),
            makeQuery: Self.relatedQuery,
            source: self
        )
    }

    /// The target objects relationship `origin.name` links to the object `origin` names, in
    /// id order. For the side holding a key, the key as stored (read in the same statement),
    /// or the value the handle was made with when the object has no id yet.
    @Sendable
    private static func relatedQuery<T: Model>(_ origin: RelationOrigin) -> ObjectQuery<T> {
        do {
            let relation = try ModelSchema.of(Self.self).relation(named: origin.name)
            let idName = relation.target.columns[relation.target.idColumn].name
            var query = ObjectQuery<T>()
            // `\.id` in generic code is the protocol's requirement, which names no column.
            query.lastSortKey = (ObjectQuery<T>.SortKey(column: idName, keyPath: "\\\(T.self).id", direction: .ascending))
            let none = query.filter(ObjectFilter(sql: "0"))
            let targetID = SQL.quote(idName)
            let value = origin.lookup
            switch relation.path {
            case .sourceColumn(let column):
                if origin.sourceID != .null {
                    let source = relation.source
                    return query.filter(ObjectFilter(
                        sql: "\(targetID) = (SELECT \(SQL.quote(column)) FROM \(SQL.quote(source.table)) WHERE \(SQL.quote(source.columns[source.idColumn].name)) = ?)",
                        arguments: [origin.sourceID]
                    ))
                }
                guard value != .null else { return none }
                return query.filter(ObjectFilter(sql: "\(targetID) = ?", arguments: [value]))
            case .targetColumn(let column):
                guard value != .null else { return none }
                return query.filter(ObjectFilter(sql: "\(SQL.quote(column)) = ?", arguments: [value]))
            case .join(let table, let source, let target):
                guard value != .null else { return none }
                return query.filter(ObjectFilter(
                    sql: "\(targetID) IN (SELECT \(SQL.quote(target)) FROM \(SQL.quote(table)) WHERE \(SQL.quote(source)) = ?)",
                    arguments: [value]
                ))
            }
        } catch {
            return ObjectQuery().filter(ObjectFilter(sql: "0", unknown: ["\(error)"]))
        }
    }
}
