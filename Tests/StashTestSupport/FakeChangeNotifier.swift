import Dispatch
import StashCore

/// An in-process stand-in for Darwin's notification center behind ``ChangeNotifier``, for
/// Linux tests of the cross-process signal's wiring: it records posts, registrations and
/// cancellations, and a post runs the handlers registered for its name on a global queue, as
/// `notify_register_dispatch` does.
///
/// ```swift
/// let fake = FakeChangeNotifier()
/// let prefs = try ChangeNotifier.$current.withValue(fake.notifier) { try Preferences(url: url) }
/// try prefs.set(1, forKey: "a")
/// #expect(await eventually { fake.posts(of: ChangeSignal.name(for: url)) == 1 })
/// ```
package final class FakeChangeNotifier: Sendable {
    private struct State {
        var posts: [String] = []
        var registrations: [Int32: (name: String, handler: @Sendable () -> Void)] = [:]
        var nextToken: Int32 = 0
        var cancellations: [Int32] = []
    }

    private let state = LockedValue(State())

    package init() {}

    /// The seam, wired to this fake.
    package var notifier: ChangeNotifier {
        ChangeNotifier(
            post: { [self] name in
                let handlers = state.withLock { state in
                    state.posts.append(name)
                    return state.registrations.values.filter { $0.name == name }.map { $0.handler }
                }
                for handler in handlers { DispatchQueue.global().async(execute: handler) }
            },
            register: { [self] name, handler in
                state.withLock { state in
                    state.nextToken += 1
                    state.registrations[state.nextToken] = (name, handler)
                    return state.nextToken
                }
            },
            cancel: { [self] token in
                state.withLock { state in
                    state.cancellations.append(token)
                    state.registrations[token] = nil
                }
            }
        )
    }

    /// How many times `name` was posted.
    package func posts(of name: String) -> Int {
        state.withLock { state in state.posts.filter { $0 == name }.count }
    }

    /// How many registrations of `name` are live (not cancelled).
    package func registrations(of name: String) -> Int {
        state.withLock { state in state.registrations.values.filter { $0.name == name }.count }
    }

    /// Every cancelled token, in order (a token cancelled twice shows twice).
    package var cancellations: [Int32] { state.withLock { $0.cancellations } }

    /// A post of `name` from "another process": the handlers run, no post is recorded.
    package func deliver(_ name: String) {
        let handlers = state.withLock { state in state.registrations.values.filter { $0.name == name }.map { $0.handler } }
        for handler in handlers { DispatchQueue.global().async(execute: handler) }
    }
}
