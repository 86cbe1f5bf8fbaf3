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
/// ``StashError/Code/notPrefetched`` rather than answering "none". A value: keep it, pass it
/// to other threads; it does not change when the store does.
public struct ObjectGraph<M: Model>: RandomAccessCollection, Sendable {
    /// The objects the query selected, in its order.
    public let objects: [M]
    let loaded: [GraphKey: [StoredValue: [any Sendable]]]

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
        try group(related.origin).first as? T
    }

    /// The prefetched objects a to-many relationship reaches, in id order.
    ///
    /// ```swift
    /// let cards = try graph.fetch(person.cards)
    /// ```
    public func fetch<T: Model>(_ related: RelatedObjects<T>) throws -> [T] {
        try group(related.origin).compactMap { $0 as? T }
    }

    private func group(_ origin: RelationOrigin) throws -> [any Sendable] {
        guard let groups = loaded[GraphKey(source: origin.source, name: origin.name)] else {
            throw StashError(.notPrefetched, "the relationship \(origin.name) was not included in the prefetch: add .including(\\.\(origin.name))", key: origin.name)
        }
        return groups[origin.lookup] ?? []
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
        var loaded: [GraphKey: [StoredValue: [any Sendable]]] = [:]
        try load(query.includes, parentIDs: ids, arguments: arguments, into: &loaded)
        return ObjectGraph(objects: objects, loaded: loaded)
    }

    /// Reads each include's objects for the parents `parentIDs` selects, then its children.
    private func load(_ includes: [Include], parentIDs: String, arguments: [StoredValue], into loaded: inout [GraphKey: [StoredValue: [any Sendable]]]) throws {
        for include in includes {
            let relation = try include.hop.schema().relation(named: include.hop.name)
            guard let source = store.models[relation.source.type], let target = store.models[include.targetType] else {
                throw StashError(.unknownModel, "\(include.hop.sourceName).\(include.hop.name) reaches a model that is not in the store's schema", key: "\(include.hop.sourceName).\(include.hop.name)")
            }
            let sql = relation.path.selectPrefetched(source, target, sourceIDs: parentIDs)
            var groups: [StoredValue: [any Sendable]] = [:]
            for (object, key) in try include.rows(self, sql, arguments) {
                groups[key, default: []].append(object)
            }
            let key = GraphKey(source: source.type, name: include.hop.name)
            loaded[key, default: [:]].merge(groups) { old, _ in old }   // one snapshot: the same source has the same related objects at every level
            if !include.children.isEmpty {
                try load(include.children, parentIDs: relation.path.relatedIDs(source, target, sourceIDs: parentIDs), arguments: arguments, into: &loaded)
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
