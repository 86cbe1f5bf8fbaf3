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
@propertyWrapper
public final class LiveQuery<M: Model>: Observable, Sendable {
    private struct State {
        var objects: [M] = []
        var isLoading = true
        var error: StashError?
    }

    private let registrar = ObservationRegistrar()
    private let state = LockedValue(State())
    private let task = LockedValue<Task<Void, Never>?>(nil)

    /// Follows `query` in `store`.
    public init(_ query: ObjectQuery<M>, in store: ObjectStore) {
        let observation = store.observe(query)
        let started = Task { [weak self] in
            do {
                for try await objects in observation {
                    guard let self else { return }
                    self.receive(objects)
                }
            } catch {
                self?.fail(error as? StashError ?? StashError(.io, "\(error)"))
            }
        }
        task.withLock { $0 = started }
    }

    deinit {
        task.withLock { $0?.cancel() }
    }

    /// The objects the query selects (empty until the first results arrive).
    public var objects: [M] {
        registrar.access(self, keyPath: \.objects)
        return state.withLock { $0.objects }
    }

    /// How many objects the query selects.
    public var count: Int { objects.count }

    /// Whether the first results have yet to arrive.
    public var isLoading: Bool {
        registrar.access(self, keyPath: \.isLoading)
        return state.withLock { $0.isLoading }
    }

    /// Why the results stopped following the store (a closed store, say), or `nil`.
    public var error: StashError? {
        registrar.access(self, keyPath: \.error)
        return state.withLock { $0.error }
    }

    /// The objects, for the property-wrapper form.
    public var wrappedValue: [M] { objects }

    /// The live query itself (`$people.isLoading`), for the property-wrapper form.
    public var projectedValue: LiveQuery<M> { self }

    private func receive(_ objects: [M]) {
        registrar.withMutation(of: self, keyPath: \.objects) {
            state.withLock { $0.objects = objects }
        }
        if state.withLock({ $0.isLoading }) {
            registrar.withMutation(of: self, keyPath: \.isLoading) { state.withLock { $0.isLoading = false } }
        }
    }

    private func fail(_ error: StashError) {
        registrar.withMutation(of: self, keyPath: \.error) { state.withLock { $0.error = error } }
        if state.withLock({ $0.isLoading }) {
            registrar.withMutation(of: self, keyPath: \.isLoading) { state.withLock { $0.isLoading = false } }
        }
    }
}
