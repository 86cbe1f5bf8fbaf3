import NIOCore

/// Keeps a response body's writer in step with its channel, so that the parts waiting to be
/// sent stay a few hundred kilobytes whatever the body's size and however busy the machine.
///
/// HummingbirdCore's body writer hands each part to the channel's event loop and returns at
/// once while it believes the channel writable; it learns that the channel is not (NIO's
/// write buffer past its high watermark) only when the event loop has written the parts
/// already handed over. A writer reading a stored body from the page cache produces parts
/// far faster than a loaded event loop takes them, so without a check it can queue tens of
/// megabytes before the first "not writable" reaches it. Every ``window`` bytes, this waits
/// for one turn of the channel's event loop: the parts handed over before it are then in the
/// channel, the writer knows whether it may go on, and at most one window is ever in flight
/// beyond the channel's own buffer.
struct WritePacing {
    /// The bytes written between two waits for the event loop.
    static let window = 256 << 10

    private let eventLoop: any EventLoop
    private var sinceLastTurn = 0

    init(channel: any Channel) {
        eventLoop = channel.eventLoop
    }

    /// Counts `count` bytes just handed to the writer, and waits for a turn of the event loop
    /// once a window has gone by.
    ///
    /// - throws: When the event loop is shutting down.
    mutating func wrote(_ count: Int) async throws {
        sinceLastTurn += count
        guard sinceLastTurn >= Self.window else { return }
        sinceLastTurn = 0
        try await eventLoop.submit {}.get()
    }
}
