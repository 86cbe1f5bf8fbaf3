import Foundation
import StashCore

/// A query with the relationships to read together with its objects, to any depth: one SQL
/// statement for the objects and one per relationship named, however many objects there are.
/// Run it with a reader's `fetch`, which returns an ``ObjectGraph``.
///
/// ```swift
/// let query = Person.query().sorted(\.name).including(\.cards, including: \.issuer)   // 3 statements
/// let both = Person.query().including(\.card).including(\.children, .including(\.card))
/// ```
public struct PrefetchQuery<M: Model>: Sendable {
    let query: ObjectQuery<M>
    var includes: [Include]

    /// Reads `relationship` too, and below it the `nested` relationships of its objects.
    ///
    /// ```swift
    /// Person.query().including(\.card).including(\.cards, .including(\.issuer))
    /// ```
    public func including<R: ObjectRelationship>(_ relationship: KeyPath<M.Type, R>, _ nested: Prefetch<R.Target>...) -> Self where R.Source == M {
        var copy = self
        copy.includes.append(Include(M.self[keyPath: relationship], nested.map(\.include)))
        return copy
    }

    /// Reads `relationship` too, and `nested` of each of its objects.
    ///
    /// ```swift
    /// Person.query().including(\.cards).including(\.children, including: \.card)
    /// ```
    public func including<R: ObjectRelationship, N: ObjectRelationship>(_ relationship: KeyPath<M.Type, R>, including nested: KeyPath<R.Target.Type, N>) -> Self
    where R.Source == M, N.Source == R.Target {
        including(relationship, Prefetch.including(nested))
    }
}

/// A relationship read below another one in a ``PrefetchQuery``: `.including(\.issuer)`.
///
/// ```swift
/// Person.query().including(\.cards, .including(\.issuer), .including(\.scans))
/// ```
public struct Prefetch<M: Model>: Sendable {
    let include: Include

    /// Reads `relationship` of the objects above, and its `nested` relationships.
    ///
    /// ```swift
    /// .including(\.issuer, .including(\.country))
    /// ```
    public static func including<R: ObjectRelationship>(_ relationship: KeyPath<M.Type, R>, _ nested: Prefetch<R.Target>...) -> Self where R.Source == M {
        Prefetch(include: Include(M.self[keyPath: relationship], nested.map(\.include)))
    }
}

extension ObjectQuery {
    /// This query with `relationship` read together with its objects (and `nested` below
    /// it): see ``PrefetchQuery``.
    ///
    /// ```swift
    /// let graph = try reader.fetch(Person.query().including(\.cards, .including(\.issuer)))
    /// ```
    public func including<R: ObjectRelationship>(_ relationship: KeyPath<M.Type, R>, _ nested: Prefetch<R.Target>...) -> PrefetchQuery<M> where R.Source == M {
        PrefetchQuery(query: self, includes: [Include(M.self[keyPath: relationship], nested.map(\.include))])
    }

    /// This query with `relationship` read together with its objects, and `nested` of each
    /// of those.
    ///
    /// ```swift
    /// let graph = try reader.fetch(Person.query().including(\.cards, including: \.issuer))
    /// ```
    public func including<R: ObjectRelationship, N: ObjectRelationship>(_ relationship: KeyPath<M.Type, R>, including nested: KeyPath<R.Target.Type, N>) -> PrefetchQuery<M>
    where R.Source == M, N.Source == R.Target {
        including(relationship, Prefetch.including(nested))
    }
}

/// One node of a prefetch tree: a relationship, how to decode its target, what to read
/// below it.
struct Include: Sendable {
    let hop: RelationHop
    let targetType: ObjectIdentifier
    /// Runs `sql` and files each target object it reads under its key, reserving room for
    /// `expectedCount` keys.
    let read: @Sendable (ObjectReader, String, [ObjectStore.StoredValue], _ expectedCount: Int) throws -> any PrefetchedGroup
    let children: [Include]

    init<R: ObjectRelationship>(_ relationship: R, _ children: [Include]) {
        hop = RelationHop(source: R.Source.self, name: (relationship as? any NamedDeclaration)?.declaration.name ?? "")
        targetType = ObjectIdentifier(R.Target.self)
        read = { reader, sql, arguments, expectedCount in
            try PrefetchedObjects<R.Target>(reader, sql: sql, arguments: arguments, expectedCount: expectedCount)
        }
        self.children = children
    }
}
