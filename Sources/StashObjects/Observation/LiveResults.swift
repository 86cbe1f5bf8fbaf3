import Observation
import StashCore

/// What ``LiveQuery`` and ``LiveObject`` share: the latest value of an ``ObjectObservation``,
/// whether the first has yet to arrive, and why the updates stopped, as state the Observation
/// framework tracks (``ObservedState``). A task iterates the observation until this object is
/// released (the state cancels it then); it holds the object weakly, so that a view dropping its live query stops the
/// store's work for it.
final class LiveResults<Value: Sendable>: Observable, Sendable {
    private struct State: Sendable {
        var value: Value
        var isLoading = true
        var error: StashError?
        /// How many results the observation delivered, changed or not.
        var deliveries = 0
    }

    private let state: ObservedState<State>

    /// Starts at `initial` (loading) and follows `observation`.
    init(initial: Value, following observation: ObjectObservation<Value>) {
        state = ObservedState(State(value: initial))
        let started = Task { [weak self] in
            do {
                for try await value in observation {
                    guard let self else { return }
                    self.receive(value)
                }
            } catch {
                self?.fail(error as? StashError ?? StashError(.io, "\(error)"))
            }
        }
        state.releasing { started.cancel() }
    }

    var value: Value { state.read(\.value, of: self) { $0.value } }

    var isLoading: Bool { state.read(\.isLoading, of: self) { $0.isLoading } }

    var error: StashError? { state.read(\.error, of: self) { $0.error } }

    /// How many results the observation delivered so far, equal ones included (untracked):
    /// lets a test know that a commit's results came and were found unchanged.
    var deliveries: Int { state.peek { $0.deliveries } }

    /// New results: a change unless they equal the current ones (for `Equatable` models,
    /// found at run time: the observations of generic code cannot ask for the conformance).
    private func receive(_ value: Value) {
        defer { state.adjust { $0.deliveries += 1 } }
        state.change(\.value, of: self, when: { $0.isLoading || !Self.same($0.value, value) }) { $0.value = value }
        loaded()
    }

    private func fail(_ error: StashError) {
        state.change(\.error, of: self) { $0.error = error }
        loaded()
    }

    private static func same(_ old: Value, _ new: Value) -> Bool {
        guard let old = old as? any Equatable else { return false }
        return old.equals(new)
    }

    private func loaded() {
        state.change(\.isLoading, of: self, when: { $0.isLoading }) { $0.isLoading = false }
    }
}

extension Equatable {
    /// Whether `other` is of this type and equal to this value.
    fileprivate func equals(_ other: Any) -> Bool {
        (other as? Self) == self
    }
}
