public import Foundation
import GRDB
import StashCore

/// The results of a query, again after every commit that changes them: an `AsyncSequence`
/// that yields once at the start and then after each such commit, whichever task made it
/// through this store. Commits to tables the query does not read never wake it (GRDB's
/// `ValueObservation` tracks the tables and columns read); for `Equatable` models, a commit
/// that leaves the results identical yields nothing either. Commits of other processes (an
/// app extension, say) and of other stores on the same file are seen within 50 ms: while
/// any observation runs, the store looks at SQLite's `data_version` that often, and fetches
/// again when it changed.
///
/// ```swift
/// for try await adults in store.observe(Person.query().filter(\.age >= 18)) {
///     print(adults.count)
/// }
/// ```
public struct ObjectObservation<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value
    let values: @Sendable () -> AsyncValueObservation<Value>
    let watch: ExternalCommitWatch

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncValueObservation<Value>.Iterator
        /// Keeps the store watching for other processes' commits while this iteration lives.
        let lease: ExternalCommitWatch.Lease

        public mutating func next() async throws -> Value? {
            do {
                return try await base.next()
            } catch let error as DatabaseError {
                throw ObjectErrors.map(error, path: nil)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: values().makeAsyncIterator(), lease: watch.lease())
    }
}

extension ObjectStore {
    /// How often, while anything observes a store, it looks for the commits of other
    /// processes (and of other stores on the same file): SQLite's `data_version`, one read
    /// on the write connection.
    public static let watchInterval: TimeInterval = 0.05

    private func observation<Value: Sendable>(_ fetch: @escaping @Sendable (ObjectReader) throws -> Value) -> ValueObservation<ValueReducers.Fetch<Value>> {
        ValueObservation.tracking { [self] db in try fetch(ObjectReader(db: db, store: self)) }
    }

    /// The objects `query` selects, now and after every commit that changes them.
    ///
    /// ```swift
    /// for try await people in store.observe(Person.query().sorted(\.name)) { render(people) }
    /// ```
    public func observe<M: Model>(_ query: ObjectQuery<M>) -> ObjectObservation<[M]> {
        let observation = observation { try $0.fetch(query) }
        let pool = self.pool
        return ObjectObservation(values: { observation.values(in: pool) }, watch: externalCommits)
    }

    /// The objects `query` selects, now and after every commit that changes them; identical
    /// results are not repeated.
    ///
    /// ```swift
    /// for try await people in store.observe(Person.query().filter(\.age > 20)) { render(people) }
    /// ```
    public func observe<M: Model & Equatable>(_ query: ObjectQuery<M>) -> ObjectObservation<[M]> {
        let observation = observation { try $0.fetch(query) }.removeDuplicates()
        let pool = self.pool
        return ObjectObservation(values: { observation.values(in: pool) }, watch: externalCommits)
    }

    /// One object, now and after every commit that may have changed it (`nil` while there is
    /// none); a model that is not `Equatable` may be yielded again unchanged.
    ///
    /// ```swift
    /// for try await entry in store.observe(LogEntry.self, id: 7) { show(entry) }
    /// ```
    public func observe<M: Model>(_ type: M.Type, id: M.ID) -> ObjectObservation<M?> {
        let observation = observation { try $0.object(type, id: id) }
        let pool = self.pool
        return ObjectObservation(values: { observation.values(in: pool) }, watch: externalCommits)
    }

    /// One object, now and after every commit that changes it (`nil` once deleted).
    ///
    /// ```swift
    /// for try await ada in store.observe(Person.self, id: 1) { show(ada) }
    /// ```
    public func observe<M: Model & Equatable>(_ type: M.Type, id: M.ID) -> ObjectObservation<M?> {
        let observation = observation { try $0.object(type, id: id) }.removeDuplicates()
        let pool = self.pool
        return ObjectObservation(values: { observation.values(in: pool) }, watch: externalCommits)
    }
}
