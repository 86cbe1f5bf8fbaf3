/// One change to a preferences store, as observers receive it.
///
/// ```swift
/// for await change in prefs.changes() {
///     print(change.key, change.value ?? "removed", change.isFromOtherProcess)
/// }
/// ```
public struct PreferenceChange: Sendable, Hashable {
    /// The key whose stored value changed.
    public var key: String
    /// The new stored value, or `nil` when the key was removed.
    public var value: PreferenceValue?
    /// Whether another process (or another `Preferences` instance on the same suite) made it.
    public var isFromOtherProcess: Bool

    public init(key: String, value: PreferenceValue?, isFromOtherProcess: Bool) {
        self.key = key
        self.value = value
        self.isFromOtherProcess = isFromOtherProcess
    }
}
