import GRDB
import StashCore

/// What one included relationship of a prefetch read, whatever its target model: the
/// ``ObjectGraph`` keeps one per relationship and hands it back typed.
protocol PrefetchedGroup: AnyObject, Sendable {
    /// This group with the keys of `other` it lacks: the same relationship included at two
    /// levels of one prefetch reads one snapshot, so a key read twice has the same objects.
    func adding(_ other: any PrefetchedGroup) -> any PrefetchedGroup
}

/// The related objects of one included relationship, filed under the key a handle looks
/// them up by (``RelationOrigin/lookup``), in id order. The first object of a key is kept
/// apart from the others: a to-one (one object per key) costs one dictionary entry and no
/// array, and a to-many read one object at a time costs the same.
final class PrefetchedObjects<T: Model>: PrefetchedGroup {
    private let first: [ObjectStore.StoredValue: T]
    private let more: [ObjectStore.StoredValue: [T]]

    private init(first: [ObjectStore.StoredValue: T], more: [ObjectStore.StoredValue: [T]]) {
        self.first = first
        self.more = more
    }

    /// Runs `sql`, which selects objects in id order, each followed by its key.
    convenience init(_ reader: ObjectReader, sql: String, arguments: [ObjectStore.StoredValue], expectedCount: Int) throws {
        let schema = try reader.store.schema(for: T.self)
        let cursor = try KeyedModelCursor<T>(statement: reader.db.cachedStatement(sql: sql), arguments: arguments, schema: schema)
        var first = [ObjectStore.StoredValue: T](minimumCapacity: expectedCount)
        var more: [ObjectStore.StoredValue: [T]] = [:]
        try cursor.forEach { object, key in
            // One hash per object when keys are unique (every to-one).
            guard let earlier = first.updateValue(object, forKey: key) else { return }
            first[key] = earlier
            more[key, default: []].append(object)
        }
        self.init(first: first, more: more)
    }

    /// The first object filed under `key`: a to-one's target.
    func object(_ key: ObjectStore.StoredValue) -> T? {
        first[key]
    }

    /// Every object filed under `key`, in id order: a to-many's targets.
    func objects(_ key: ObjectStore.StoredValue) -> [T] {
        guard let head = first[key] else { return [] }
        guard let rest = more[key] else { return [head] }
        return [head] + rest
    }

    func adding(_ other: any PrefetchedGroup) -> any PrefetchedGroup {
        guard let other = other as? PrefetchedObjects<T>, other !== self else { return self }
        var first = self.first
        var more = self.more
        for (key, object) in other.first where first[key] == nil {
            first[key] = object
            more[key] = other.more[key]
        }
        return PrefetchedObjects(first: first, more: more)
    }
}
