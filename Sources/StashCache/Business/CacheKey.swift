public import Foundation
import StashCore

/// Whose data an entry is: everyone's, or one signed-in user's (cleared at logout).
public enum CacheScope: Sendable, Hashable, CustomStringConvertible {
    /// Data every user shares: a product catalogue, a country list.
    case shared
    /// One user's data: their orders, their inbox.
    case user(String)

    public var description: String {
        switch self {
        case .shared: return "shared"
        case .user(let id): return "user \(id)"
        }
    }

    /// The prefix of the storage keys of this scope; ends with `/` so that user `4` never
    /// matches user `42`.
    var keyPrefix: String {
        switch self {
        case .shared: return "shared/"
        case .user(let id): return "user/" + CacheScope.escape(id) + "/"
        }
    }

    /// `component` in NFC (``StashCore/StoredKey``), percent-encoded: canonically
    /// equivalent names, scopes and parameters give the same storage key.
    static func escape(_ component: String) -> String {
        let normalized = (try? StoredKey.normalized(component)) ?? component
        return normalized.addingPercentEncoding(withAllowedCharacters: unreserved) ?? normalized
    }

    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
}

/// Where an entry lives.
public enum CacheLocation: String, Sendable, Hashable, CaseIterable {
    /// The caches folder: not backed up, and the system may purge it when space runs low.
    case caches
    /// The documents folder: kept until the app removes it (still trimmed by the store's
    /// limits). For data the app cannot fetch again cheaply, or must show offline.
    case documents
}

/// How long a cached value is good for.
public enum CacheFreshness: Sendable, Hashable {
    /// Not cached at all: writes are dropped (and remove what was there), reads find
    /// nothing. For volatile data such as prices or stock levels. (Not to be confused with
    /// `ExpiryPolicy.never`, which keeps a value forever.)
    case doNotCache
    /// Fresh forever: static data such as a country list.
    case forever
    /// Fresh for this many seconds after it was stored, then stale: still returned, marked
    /// ``CachedValue/isStale``, so an app can show it offline and refresh it online.
    case fresh(for: TimeInterval)
}

/// A typed key of a ``CacheStore``: what a business value is called, whose it is, where it
/// lives and how long it stays fresh.
///
/// ```swift
/// extension CacheKey where Value == [Product] {
///     static var products: Self { CacheKey("products", freshness: .fresh(for: 600)) }
/// }
/// func orders(of user: String, page: Int) -> CacheKey<[Order]> {
///     CacheKey("orders", scope: .user(user), location: .documents, parameter: "page=\(page)", freshness: .fresh(for: 60))
/// }
/// ```
public struct CacheKey<Value: Codable & Sendable>: Sendable, Hashable {
    /// The name of the business type, such as `products`.
    public var name: String
    /// Whose data it is.
    public var scope: CacheScope
    /// Where it lives.
    public var location: CacheLocation
    /// A parameter folded into the key: a page, a query, an identifier.
    public var parameter: String?
    /// How long a stored value stays fresh.
    public var freshness: CacheFreshness

    /// A key named `name`.
    public init(
        _ name: String, scope: CacheScope = .shared, location: CacheLocation = .caches,
        parameter: String? = nil, freshness: CacheFreshness = .forever
    ) {
        self.name = name
        self.scope = scope
        self.location = location
        self.parameter = parameter
        self.freshness = freshness
    }

    /// The same key with another parameter.
    ///
    /// ```swift
    /// let page2 = orders(of: "42", page: 1).with(parameter: "page=2")
    /// ```
    public func with(parameter: String?) -> CacheKey {
        var key = self
        key.parameter = parameter
        return key
    }

    /// Refuses a name, user or parameter holding NUL with `.invalidKey` (``StashCore/StoredKey``).
    func validate() throws {
        var components = [name]
        if case .user(let id) = scope { components.append(id) }
        if let parameter { components.append(parameter) }
        for component in components { try StoredKey.refuseNUL(component) }
    }

    /// The key in the disk cache: `shared/products` or `user/42/orders?page%3D2`. Each part
    /// is taken in NFC before it is escaped, so keys that Swift finds equal (`"café"`
    /// precomposed or decomposed) are one entry.
    public var storageKey: String {
        var key = scope.keyPrefix + CacheScope.escape(name)
        if let parameter { key += "?" + CacheScope.escape(parameter) }
        return key
    }
}

/// A value read from a ``CacheStore``, with its age and freshness.
///
/// ```swift
/// if let cached = try store.value(for: .products) {
///     show(cached.value)
///     if cached.isStale { refresh() }
/// }
/// ```
public struct CachedValue<Value: Sendable>: Sendable {
    /// The value.
    public var value: Value
    /// When it was stored.
    public var storedAt: Date
    /// Seconds since it was stored.
    public var age: TimeInterval
    /// Whether its key's freshness has run out.
    public var isStale: Bool
}
