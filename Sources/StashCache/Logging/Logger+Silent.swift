package import Logging

extension Logger {
    /// The logger of a Stash store that was given none: it discards every message, as
    /// swift-log advises a library to do by default (AsyncHTTPClient does the same), so that a
    /// library never writes to an app's standard error on its own. Pass your own `Logger` in
    /// the store's configuration to see its recoveries and background failures.
    package static let stashSilent = Logger(label: "Stash", factory: { _ in SwiftLogNoOpLogHandler() })
}
