@testable import StashHTTP
import Testing

/// `CollapseGate`: waiters go when it opens, when their time is up, or when cancelled, and
/// leave no record behind in any case.
struct CollapseGateTests {
    @Test func anOpenGateLetsEveryWaiterGoAndKeepsNoRecord() async {
        let gate = CollapseGate()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { await gate.wait(atMost: .seconds(3600)) } }
            while gate.waiting < 8 { await Task.yield() }
            gate.open()
        }
        #expect(gate.recorded == 0)
        await gate.wait(atMost: .seconds(3600)) // open: at once
        #expect(gate.recorded == 0)
    }

    /// Waiters whose time is up at once and which are cancelled meanwhile: each may be let
    /// go twice (timer, then cancellation), and none is remembered once it returned.
    @Test func waitersLetGoTwiceLeaveNoRecord() async {
        let gate = CollapseGate()
        for _ in 0..<20 {
            let waiters = (0..<50).map { _ in Task { await gate.wait(atMost: .zero) } }
            for waiter in waiters {
                await Task.yield()
                waiter.cancel()
            }
            for waiter in waiters { await waiter.value }
        }
        #expect(gate.recorded == 0, "waiters that returned are still recorded")
        #expect(gate.waiting == 0)
    }

    @Test func aCancelledWaiterGoesAtOnce() async {
        let gate = CollapseGate()
        let waiter = Task { await gate.wait(atMost: .seconds(3600)) }
        while gate.waiting < 1 { await Task.yield() }
        waiter.cancel()
        await waiter.value
        #expect(gate.recorded == 0)
    }
}
