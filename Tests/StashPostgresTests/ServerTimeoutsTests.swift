@testable import StashPostgres
import Testing

/// The server's timeouts leave the client time to hear its answer: a tenth of the
/// operation's timeout, never less than 0.25 s (lost on a loaded host, the answer came
/// after the client's deadline and a write not applied was reported as "may have been
/// applied"), never more than half of it, and never 0 (which PostgreSQL reads as "none").
struct ServerTimeoutsTests {
    @Test(arguments: [
        (Duration.seconds(60), Int64(54_000)), (.seconds(6), 5_400), (.seconds(2), 1_750),
        (.seconds(1), 750), (.milliseconds(400), 200), (.milliseconds(2), 1), (.zero, 1),
    ])
    func theServerGivesUpFirstByAMargin(timeout: Duration, milliseconds: Int64) {
        #expect(ServerTimeouts.milliseconds(for: timeout) == milliseconds)
    }
}
