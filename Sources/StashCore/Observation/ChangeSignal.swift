package import Foundation

/// A cross-process "this file changed" signal: a store posts it after a commit that other
/// processes should see, and a store whose observers watch the same file wakes at once and
/// looks again (``ChangeWatch``; its poll stays, as the bound where no signal arrives).
///
/// The name is `org.stash.changed.` and a hash of the file's resolved path: Darwin
/// notification names are shared by the user's session, so the path identifies the store,
/// and an app group's container has the same path in every process of the group.
///
/// ```swift
/// let signal = ChangeSignal(file: url)
/// let subscription = signal.observe { print("a commit, here or in another process") }
/// signal.post()
/// subscription?.cancel()
/// ```
///
/// Thread-safe. On Linux (``ChangeNotifier/platform`` is ``ChangeNotifier/none``) posting
/// does nothing and ``observe(_:)`` returns `nil`.
package struct ChangeSignal: Sendable {
    /// The notification's name.
    package let name: String
    private let notifier: ChangeNotifier

    /// The signal of the store in `file` (which need not exist yet), carried by `notifier`.
    package init(file: URL, notifier: ChangeNotifier = .current) {
        name = ChangeSignal.name(for: file)
        self.notifier = notifier
    }

    /// The name for `file`: one for every path that resolves to it, whether or not the file
    /// and its folders exist yet (the part that exists is resolved, the rest appended).
    package static func name(for file: URL) -> String {
        var existing = file.standardizedFileURL
        var missing: [String] = []
        while existing.path != "/", !FileManager.default.fileExists(atPath: existing.path) {
            missing.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        let resolved = missing.reduce(existing.resolvingSymlinksInPath()) { $0.appendingPathComponent($1) }
        return "org.stash.changed." + SHA256.hexDigest(of: resolved.path).prefix(32)
    }

    /// Tells every observer of the file, in every process (this one included).
    package func post() {
        notifier.post(name)
    }

    /// Runs `handler` (on a utility queue) after each post, until the subscription is
    /// cancelled or released; `nil` where the platform has no signal.
    package func observe(_ handler: @escaping @Sendable () -> Void) -> Subscription? {
        guard let token = notifier.register(name, handler) else { return nil }
        let cancel = notifier.cancel
        return Subscription { cancel(token) }
    }

    /// A registration of ``observe(_:)``: cancelled once, by ``cancel()`` or when released.
    package final class Subscription: Sendable {
        private let pending: LockedValue<(@Sendable () -> Void)?>

        init(cancel: @escaping @Sendable () -> Void) {
            pending = LockedValue(cancel)
        }

        deinit { cancel() }

        /// Ends the registration. Idempotent.
        package func cancel() {
            let cancel = pending.withLock { pending in
                defer { pending = nil }
                return pending
            }
            cancel?()
        }
    }
}
