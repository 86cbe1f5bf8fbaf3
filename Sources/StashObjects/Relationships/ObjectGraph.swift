import Foundation
import StashCore

/// The objects a ``PrefetchQuery`` selected, in its order, with the related objects it read
/// along: read those with the same `fetch` calls as a reader, without a statement.
///
/// ```swift
/// let people = try reader.fetch(Person.query().including(\.cards, including: \.issuer))
/// for person in people {
///     for card in try people.fetch(person.cards) {
///         print(person.name, card.number, try people.fetch(card.issuer)?.name ?? "-")
///     }
/// }
/// ```
///
/// Asking for a relationship the query did not include throws
/// ``StashCore/StashError/Code/notPrefetched`` rather than answering "none". A value: keep it, pass it
/// to other threads; it does not change when the store does.
public struct ObjectGraph<M: Model>: RandomAccessCollection, Sendable {
    /// The objects the query selected, in its order.
    public let objects: [M]
    /// What each included relationship read (a handful: searched in order).
    let loaded: [(key: GraphKey, objects: any PrefetchedGroup)]

    /// The index of the first object.
    ///
    /// ```swift
    /// let first = graph[graph.startIndex]
    /// ```
    public var startIndex: Int { objects.startIndex }
    /// The index after the last object.
    ///
    /// ```swift
    /// let count = graph.endIndex - graph.startIndex
    /// ```
    public var endIndex: Int { objects.endIndex }
    /// The object at `position`.
    ///
    /// ```swift
    /// let first = graph[0]
    /// ```
    public subscript(position: Int) -> M { objects[position] }

    /// The prefetched object a to-one relationship reaches, or `nil`.
    ///
    /// ```swift
    /// let card = try graph.fetch(person.card)
    /// ```
    public func fetch<T: Model>(_ related: RelatedObject<T>) throws -> T? {
        try prefetched(related.origin, T.self).object(related.origin.lookup)
    }

    /// The prefetched objects a to-many relationship reaches, in id order.
    ///
    /// ```swift
    /// let cards = try graph.fetch(person.cards)
    /// ```
    public func fetch<T: Model>(_ related: RelatedObjects<T>) throws -> [T] {
        try prefetched(related.origin, T.self).objects(related.origin.lookup)
    }

    private func prefetched<T: Model>(_ origin: RelationOrigin, _: T.Type) throws -> PrefetchedObjects<T> {
        for entry in loaded where entry.key.source == origin.source && entry.key.name == origin.name {
            if let objects = entry.objects as? PrefetchedObjects<T> { return objects }
        }
        throw StashError(.notPrefetched, "the relationship \(origin.name) was not included in the prefetch: add .including(\\.\(origin.name))", key: origin.name)
    }
}

/// A relationship of one model, as the graph files what it read.
struct GraphKey: Hashable, Sendable {
    let source: ObjectIdentifier
    let name: String
}

extension ObjectReader {
    /// The objects `query` selects, with the relationships it includes: one statement for
    /// the objects, one per included relationship (at any depth), whatever the number of
    /// objects.
    ///
    /// ```swift
    /// let people = try reader.fetch(Person.query().including(\.cards, including: \.issuer))
    /// ```
    public func fetch<M: Model>(_ query: PrefetchQuery<M>) throws -> ObjectGraph<M> {
        let schema = try store.schema(for: M.self)
        let objects = try fetch(query.query)
        let (clauses, arguments) = try query.query.clauses(schema)
        let ids = "SELECT \(SQL.quote(schema.columns[schema.idColumn].name)) FROM \(SQL.quote(schema.table))\(clauses)"
        var loaded: [(key: GraphKey, objects: any PrefetchedGroup)] = []
        try load(query.includes, parentIDs: ids, arguments: arguments, expectedCount: objects.count, into: &loaded)
        return ObjectGraph(objects: objects, loaded: loaded)
    }

    /// Reads each include's objects for the parents `parentIDs` selects, then its children.
    private func load(_ includes: [Include], parentIDs: String, arguments: [ObjectStore.StoredValue], expectedCount: Int, into loaded: inout [(key: GraphKey, objects: any PrefetchedGroup)]) throws {
        for include in includes {
            let relation = try include.hop.schema().relation(named: include.hop.name)
            guard let source = store.models[relation.source.type], let target = store.models[include.targetType] else {
                throw StashError(.unknownModel, "\(include.hop.sourceName).\(include.hop.name) reaches a model that is not in the store's schema", key: "\(include.hop.sourceName).\(include.hop.name)")
            }
            let sql = relation.path.selectPrefetched(source, target, sourceIDs: parentIDs)
            let objects = try include.read(self, sql, arguments, expectedCount)
            let key = GraphKey(source: source.type, name: include.hop.name)
            if let index = loaded.firstIndex(where: { $0.key == key }) {
                loaded[index].objects = loaded[index].objects.adding(objects)
            } else {
                loaded.append((key, objects))
            }
            if !include.children.isEmpty {
                try load(include.children, parentIDs: relation.path.relatedIDs(source, target, sourceIDs: parentIDs), arguments: arguments, expectedCount: expectedCount, into: &loaded)
            }
        }
    }
}

extension RelationPath {
    /// The related objects of the sources `sourceIDs` selects, each with the key a handle
    /// looks it up by: the source's id, or for the side holding the key, the target's own id
    /// (each target read once however many sources point at it).
    func selectPrefetched(_ source: ModelSchema, _ target: ModelSchema, sourceIDs: String) -> String {
        let targetID = SQL.quote(target.columns[target.idColumn].name)
        guard case .sourceColumn(let column) = self else {
            return selectRelated(source, target, sourceIDs: sourceIDs) + " ORDER BY t.\(targetID)"
        }
        let columns = target.columns.map { "t." + SQL.quote($0.name) }.joined(separator: ", ")
        let sourceID = SQL.quote(source.columns[source.idColumn].name)
        return "SELECT \(columns), t.\(targetID) FROM \(SQL.quote(target.table)) t WHERE t.\(targetID) IN (SELECT \(SQL.quote(column)) FROM \(SQL.quote(source.table)) WHERE \(sourceID) IN (\(sourceIDs)))"
    }

    /// `SELECT` of the ids of the related objects of the sources `sourceIDs` selects: the
    /// parents of the next prefetch level.
    func relatedIDs(_ source: ModelSchema, _ target: ModelSchema, sourceIDs: String) -> String {
        let sourceID = SQL.quote(source.columns[source.idColumn].name)
        let targetID = SQL.quote(target.columns[target.idColumn].name)
        switch self {
        case .sourceColumn(let column):
            return "SELECT \(SQL.quote(column)) FROM \(SQL.quote(source.table)) WHERE \(sourceID) IN (\(sourceIDs))"
        case .targetColumn(let column):
            return "SELECT \(targetID) FROM \(SQL.quote(target.table)) WHERE \(SQL.quote(column)) IN (\(sourceIDs))"
        case .join(let join, let sourceColumn, let targetColumn):
            return "SELECT \(SQL.quote(targetColumn)) FROM \(SQL.quote(join)) WHERE \(SQL.quote(sourceColumn)) IN (\(sourceIDs))"
        }
    }
}
