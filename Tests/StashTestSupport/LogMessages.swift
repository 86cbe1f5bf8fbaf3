public import Logging
import StashCore

/// The messages a `Logger` received, from any thread: give a store `logger` in its
/// configuration, then look at `all`.
///
/// ```swift
/// let log = LogMessages()
/// configuration.logger = log.logger
/// #expect(log.all.contains { $0.level == .warning && $0.message.contains("reconciled") })
/// ```
public final class LogMessages: Sendable {
    /// One message, with its level and its metadata as text.
    public struct Message: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    private let messages = LockedValue<[Message]>([])

    public init() {}

    /// Every message so far, oldest first.
    public var all: [Message] { messages.withLock { $0 } }

    /// A logger at level `trace` that keeps every message here.
    public var logger: Logger {
        Logger(label: "stash.test") { _ in Handler(messages: self) }
    }

    struct Handler: LogHandler {
        let messages: LogMessages
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).mapValues { "\($0)" }
            messages.messages.withLock { $0.append(Message(level: event.level, message: "\(event.message)", metadata: fields)) }
        }
    }
}
