public import Observation
public import StashCore

/// The objects a query selects, kept current for the Observation framework: a read of
/// ``objects`` (or ``count``, ``isLoading``, ``error``) inside `withObservationTracking`,
/// a SwiftUI view's `body` or anything else that tracks `@Observable` objects is tracked, and
/// the next commit that changes the results (this process's, another store's on the file,
/// or another process's within 50 ms) ends the tracking with `onChange`.
///
/// ```swift
/// let adults = LiveQuery(Person.query().filter(\.age >= 18).sorted(\.name), in: store)
/// withObservationTracking {
///     print(adults.isLoading ? "loading" : "\(adults.count) adults")
/// } onChange: {
///     print("the adults changed")
/// }
/// ```
///
/// As a property wrapper, in an `@Observable` model (marked `@ObservationIgnored`: the macro
/// does not take property wrappers, and the tracking comes from the query itself) or in any
/// other type:
///
/// ```swift
/// @Observable final class PeopleModel {
///     @ObservationIgnored @LiveQuery(Person.query().sorted(\.name), in: store) var people
/// }
/// ```
///
/// The results start empty with ``isLoading`` set, and arrive from the store's readers
/// (`store.observe(query)`). A failed fetch sets ``error`` and ends the
/// updates. Thread-safe: read from any thread or task; `onChange` runs on the thread that
/// delivered the new results. The query stops following the store when it is released.
/// For a model that is not `Equatable`, every commit to a table the query reads ends a
/// tracking, even one that leaves the results as they were.
@propertyWrapper
public final class LiveQuery<M: Model>: Observable, Sendable {
    let results: LiveResults<[M]>

    /// Follows `query` in `store`.
    public init(_ query: ObjectQuery<M>, in store: ObjectStore) {
        results = LiveResults(initial: [], following: store.observe(query))
    }

    /// The objects the query selects (empty until the first results arrive).
    public var objects: [M] { results.value }

    /// How many objects the query selects.
    public var count: Int { objects.count }

    /// Whether the first results have yet to arrive.
    public var isLoading: Bool { results.isLoading }

    /// Why the results stopped following the store (a closed store, say), or `nil`.
    public var error: StashError? { results.error }

    /// The objects, for the property-wrapper form.
    public var wrappedValue: [M] { objects }

    /// The live query itself (`$people.isLoading`), for the property-wrapper form.
    public var projectedValue: LiveQuery<M> { self }
}
