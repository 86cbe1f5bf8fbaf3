/// Whether `condition` holds within `seconds` (a minute unless told), checked every 2 ms: a
/// watchdog that waits for an asynchronous delivery without asserting on its speed, so that
/// a delivery that never comes fails the test instead of hanging it.
///
/// ```swift
/// #expect(await eventually { live.count == 2 })
/// ```
public func eventually(within seconds: Int = 60, _ condition: () -> Bool) async -> Bool {
    let limit = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < limit else { return false }
        do { try await Task.sleep(for: .milliseconds(2)) } catch { return condition() }
    }
    return true
}
