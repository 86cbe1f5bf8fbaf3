import Dispatch
#if canImport(Darwin)
import notify
#endif

/// The calls that carry a ``ChangeSignal`` between processes: the seam between the signal's
/// logic, which Linux tests drive with a fake, and the platform's notification center.
///
/// On Apple platforms ``platform`` is Darwin's notification center (`notify_post`,
/// `notify_register_dispatch`, `notify_cancel`): a post reaches every process of the user's
/// session that registered the name, at once. Elsewhere it is ``none``: nothing is posted,
/// nothing registers, and the stores' polls alone see other processes' commits (docs/
/// ARCHITECTURE.md says why Linux has no inotify watch).
///
/// ```swift
/// let token = notifier.register("org.stash.changed.1f2e…") { print("changed") }
/// notifier.post("org.stash.changed.1f2e…")
/// if let token { notifier.cancel(token) }
/// ```
///
/// Thread-safe, as the C calls are.
package struct ChangeNotifier: Sendable {
    /// Tells every registration of `name`, in any process.
    package var post: @Sendable (_ name: String) -> Void
    /// Runs `handler` on a utility queue after each post of `name`: a token for ``cancel``,
    /// or `nil` when nothing can be registered.
    package var register: @Sendable (_ name: String, _ handler: @escaping @Sendable () -> Void) -> Int32?
    /// Ends the registration `token`.
    package var cancel: @Sendable (_ token: Int32) -> Void

    package init(
        post: @escaping @Sendable (_ name: String) -> Void,
        register: @escaping @Sendable (_ name: String, _ handler: @escaping @Sendable () -> Void) -> Int32?,
        cancel: @escaping @Sendable (_ token: Int32) -> Void
    ) {
        self.post = post
        self.register = register
        self.cancel = cancel
    }

    /// No signal: posts go nowhere and nothing registers.
    package static let none = ChangeNotifier(post: { _ in }, register: { _, _ in nil }, cancel: { _ in })

    /// The notifier of the stores opened in this task: ``platform``, or a test's fake
    /// (`ChangeNotifier.$current.withValue(fake) { … }`).
    @TaskLocal package static var current: ChangeNotifier = .platform

    #if canImport(Darwin)
    package static let platform = ChangeNotifier(
        post: { _ = notify_post($0) },
        register: { name, handler in
            var token: Int32 = 0
            return notify_register_dispatch(name, &token, .global(qos: .utility)) { _ in handler() } == NOTIFY_STATUS_OK ? token : nil
        },
        cancel: { _ = notify_cancel($0) }
    )
    #else
    package static let platform = ChangeNotifier.none
    #endif
}
