import Dispatch
import Foundation
import StashTestSupport
import Testing

/// The child-process helper of the crash and multi-process tests.
@Suite(.timeLimit(.minutes(1)))
struct ChildProcessTests {
    /// A child that writes 1 MB on stderr (a pipe holds 64 KiB) before its one line on
    /// stdout: the helper drains stderr while the child runs, so the line arrives and the
    /// child exits. Without the draining the child blocks on its stderr and this test,
    /// waiting for the line on another thread, gives up after 20 s and kills it.
    @Test func aChattyChildOnStandardErrorDoesNotHang() throws {
        let child = try ChildProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "head -c 1000000 /dev/zero | tr '\\0' e >&2; echo done"])
        let line = LockedLine()
        let read = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            line.set(child.readLine())
            read.signal()
        }
        let answered = read.wait(timeout: .now() + 20) == .success
        if !answered { child.kill() }
        child.wait()
        #expect(answered, "the child blocked writing its standard error")
        guard answered else { return }
        #expect(line.get() == "done")
        #expect(child.standardError().utf8.count == 1_000_000)
    }
}

/// One line handed from a reading thread to the test.
private final class LockedLine: @unchecked Sendable {
    private let lock = NSLock()
    private var line: String?

    func set(_ value: String?) { lock.withLock { line = value } }
    func get() -> String? { lock.withLock { line } }
}
