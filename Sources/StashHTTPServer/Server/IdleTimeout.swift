import NIOCore

/// A client connection's idle timeout while ``RawHitHandler`` answers it, which sees every
/// request then (HummingbirdCore's own timeout, installed with the decoder, takes over when
/// the connection goes there): the connection is closed when it has read no request for
/// `timeout`. Every request it reads is answered at once, so it is never idle while
/// answering.
///
/// Its clock is the event loop's, so tests drive it with an `EmbeddedEventLoop`. Event-loop
/// confined, like the handler that holds it.
final class IdleTimeout {
    let timeout: TimeAmount
    private var channel: (any Channel)?
    private var lastActive = NIODeadline.uptimeNanoseconds(0)
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    /// Starts the clock for `channel`, once it is active.
    func start(on channel: any Channel) {
        guard self.channel == nil else { return }
        self.channel = channel
        lastActive = channel.eventLoop.now
        schedule(from: lastActive)
    }

    /// A request or a part of one was read.
    func noteActivity() {
        if let channel { lastActive = channel.eventLoop.now }
    }

    /// Stops the clock for good (the connection closed, or went to the decoder).
    func stop() {
        timer?.cancel()
        timer = nil
        channel = nil
    }

    /// Checks for idleness `timeout` after `start`, unless a check is already scheduled.
    private func schedule(from start: NIODeadline) {
        guard let channel, timer == nil else { return }
        timer = channel.eventLoop.assumeIsolated().scheduleTask(deadline: start + timeout) { [self] in
            timer = nil
            if lastActive + timeout <= channel.eventLoop.now {
                channel.close(promise: nil)
            } else {
                schedule(from: lastActive)
            }
        }
    }
}
