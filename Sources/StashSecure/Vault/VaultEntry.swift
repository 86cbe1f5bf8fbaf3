/// A vault entry as a property: reading gives the stored value (or `nil`), and the
/// Observation framework tracks every read, so an `@Observable` model or a SwiftUI view that
/// reads it is updated when the entry changes (see ``Vault/Observed`` for which changes, and
/// when).
///
/// ```swift
/// extension Vault.Key where Value == Bool {
///     static let signedIn = Vault.Key<Bool>("signed-in")
/// }
///
/// @Observable final class AccountModel {
///     @ObservationIgnored @VaultEntry(.signedIn, in: vault) var signedIn
/// }
/// ```
///
/// The property is read-only: a secret that failed to save must not go unnoticed, so writes
/// go through `$signedIn.set(true)`, which throws (``Vault/Observed/set(_:)``). In an
/// `@Observable` class, mark the property `@ObservationIgnored`: the macro does not take
/// property wrappers, and the tracking comes from the entry itself.
///
/// Thread-safe: the wrapper is a value holding a reference to the observed entry, so copies
/// of it share one value.
@propertyWrapper
public struct VaultEntry<Value: Sendable>: Sendable {
    /// The observed entry behind the property.
    public let projectedValue: Vault.Observed<Value>

    /// A property for `key` in `vault`.
    public init(_ key: Vault.Key<Value>, in vault: Vault) {
        projectedValue = vault.observed(key)
    }

    /// The entry's value, or `nil` when there is none.
    public var wrappedValue: Value? { projectedValue.value }
}
