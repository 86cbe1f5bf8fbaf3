public import Observation
public import StashCore

/// One object, by its id, kept current for the Observation framework: a read of ``object``
/// (or ``isLoading``, ``error``) inside `withObservationTracking`, a SwiftUI view's `body` or
/// anything else that tracks `@Observable` objects is tracked, and the next commit that
/// changes the object (inserts, updates or deletes it; this process's, another store's on the
/// file, or another process's within 50 ms) ends the tracking with `onChange`.
///
/// ```swift
/// let ada = LiveObject(Person.self, id: 1, in: store)
/// withObservationTracking {
///     print(ada.object?.name ?? (ada.isLoading ? "loading" : "gone"))
/// } onChange: {
///     print("Ada changed")
/// }
/// ```
///
/// As a property wrapper, in an `@Observable` model (marked `@ObservationIgnored`, as
/// ``LiveQuery`` is) or in any other type:
///
/// ```swift
/// @Observable final class ProfileModel {
///     @ObservationIgnored @LiveObject(Person.self, id: 1, in: store) var person
/// }
/// ```
///
/// ``object`` starts `nil` with ``isLoading`` set, and is `nil` again while no object has the
/// id (before its insert, after its delete). A failed fetch sets ``error`` and ends the
/// updates. Thread-safe: read from any thread or task; `onChange` runs on the thread that
/// delivered the new object. It stops following the store when it is released. For an
/// `Equatable` model, a commit that leaves the object as it was ends no tracking.
@propertyWrapper
public final class LiveObject<M: Model>: Observable, Sendable {
    let results: LiveResults<M?>

    /// Follows the object of `type` with `id` in `store`.
    public init(_ type: M.Type, id: M.ID, in store: ObjectStore) {
        results = LiveResults(initial: nil, following: store.observe(type, id: id))
    }

    /// The object, or `nil` while none has the id (and until the first fetch).
    public var object: M? { results.value }

    /// Whether the first fetch has yet to arrive.
    public var isLoading: Bool { results.isLoading }

    /// Why the object stopped following the store (a closed store, say), or `nil`.
    public var error: StashError? { results.error }

    /// The object, for the property-wrapper form.
    public var wrappedValue: M? { object }

    /// The live object itself (`$person.isLoading`), for the property-wrapper form.
    public var projectedValue: LiveObject<M> { self }
}
