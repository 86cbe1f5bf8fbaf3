/// Whether `condition` holds within `seconds` (five minutes unless told), checked every 2 ms:
/// a watchdog that waits for an asynchronous delivery without asserting on its speed, so that
/// a delivery that never comes fails the test instead of hanging it. The limit is generous on
/// purpose: under the full suite on two cores, the cooperative pool has been seen busy for
/// over a minute (tests that wait for child processes block its threads).
///
/// ```swift
/// #expect(await eventually { live.count == 2 })
/// ```
public func eventually(within seconds: Int = 300, _ condition: () -> Bool) async -> Bool {
    let limit = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < limit else { return false }
        do { try await Task.sleep(for: .milliseconds(2)) } catch { return condition() }
    }
    return true
}
