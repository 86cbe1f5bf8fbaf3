@_spi(Reflection) import Swift
import StashCore

/// The stored property each key path of a model reaches, read from the type's metadata once
/// per type (no instance needed), named by its column when the model's
/// ``Model/columnNames`` says `CodingKeys` renamed it. Only direct stored
/// properties have names: `\.address.city` has none.
enum PropertyNames {
    private static let cache = LockedValue<[ObjectIdentifier: [AnyKeyPath: String]]>([:])

    static func name<Root>(of keyPath: PartialKeyPath<Root>) -> String? {
        names(of: Root.self)[keyPath]
    }

    static func names<Root>(of type: Root.Type) -> [AnyKeyPath: String] {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        var names: [AnyKeyPath: String] = [:]
        _ = _forEachFieldWithKeyPath(of: type) { name, keyPath in
            names[keyPath] = String(cString: name)
            return true
        }
        // A model that says where `CodingKeys` put its properties (`@Model` does) names them
        // by their columns.
        if let model = type as? any Model.Type {
            names.merge(columns(of: model)) { _, column in column }
        }
        cache.withLock { $0[id] = names }
        return names
    }

    private static func columns<M: Model>(of _: M.Type) -> [AnyKeyPath: String] {
        Dictionary(uniqueKeysWithValues: M.columnNames.map { ($0.key as AnyKeyPath, $0.value) })
    }
}
