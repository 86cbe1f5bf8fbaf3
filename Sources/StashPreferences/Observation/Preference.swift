/// A typed preference as a property: reading gives the stored value (or the key's default),
/// assigning stores it, and the Observation framework tracks every read, so an `@Observable`
/// model or a SwiftUI view that reads it is updated when the value changes, in this process
/// or another (the `@AppStorage` idea, for any type and any store).
///
/// ```swift
/// extension Preferences.Key where Value == Double {
///     static let volume = Preferences.Key("volume", default: 0.8)
/// }
///
/// @Observable final class PlayerModel {
///     @ObservationIgnored @Preference(.volume) var volume
/// }
///
/// struct Player {
///     @Preference(.volume, store: prefs) var volume
/// }
/// ```
///
/// In an `@Observable` class, mark the property `@ObservationIgnored`: the macro does not
/// take property wrappers, and the tracking comes from the preference itself
/// (``Preferences/Observed``), whatever the enclosing type. `$volume` is that object: its
/// ``Preferences/Observed/lastError`` tells why an assignment stored nothing (assignments
/// cannot throw), and ``Preferences/Observed/set(_:)`` throws instead.
///
/// **Durability.** An assignment is a ``Preferences/set(_:for:)``: when it returns, the value
/// survives a crash of the process; a power cut, after ``Preferences/flush()`` or with
/// ``Preferences/Options/durable``. One that failed stored nothing.
///
/// Thread-safe, like the store: the wrapper is a value holding a reference to the observed
/// key, so copies of it share one value.
@propertyWrapper
public struct Preference<Value: Sendable>: Sendable {
    /// The observed key behind the property.
    public let projectedValue: Preferences.Observed<Value>

    /// A property for `key` in `store` (the app's own preferences unless given).
    public init(_ key: Preferences.Key<Value>, store: Preferences = .standard) {
        projectedValue = store.observed(key)
    }

    /// The stored value, or the key's default.
    public var wrappedValue: Value {
        get { projectedValue.value }
        nonmutating set { projectedValue.value = newValue }
    }
}
