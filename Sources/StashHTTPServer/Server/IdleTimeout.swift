import NIOCore

/// A client connection's idle timeout, kept by the proxy's hit handlers, which see every
/// request (HummingbirdCore's own timeout would see only those handed on to it): the
/// connection is closed when it has neither read a request part nor finished a response for
/// `timeout`, never while a request read whole is being answered.
///
/// One per connection, shared by ``RawHitHandler`` (which starts it and notes the requests it
/// answers) and, once the connection has gone to the decoder, ``FreshHitHandler`` (which
/// notes every request part, says when a forwarded request is being answered, and restarts
/// the clock when its response ends). Its clock is the event loop's, so tests drive it with
/// an `EmbeddedEventLoop`. Event-loop confined, like the handlers that hold it.
final class IdleTimeout {
    let timeout: TimeAmount
    /// Whether a request handed on and read whole is being answered: the connection is then
    /// not idle, and the clock starts again when its response ends (``responseEnded()``).
    var isAnswering: () -> Bool = { false }
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

    /// The response to a request handed on has ended: the clock runs again from now.
    func responseEnded() {
        guard let channel else { return }
        lastActive = channel.eventLoop.now
        schedule(from: lastActive)
    }

    /// Stops the clock for good (the connection closed).
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
            if isAnswering() { return }
            if lastActive + timeout <= channel.eventLoop.now {
                channel.close(promise: nil)
            } else {
                schedule(from: lastActive)
            }
        }
    }
}
