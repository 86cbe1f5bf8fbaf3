import Foundation

/// Runs `body` on a thread of its own and returns what it returns (or throws what it
/// throws), without holding a thread of the cooperative pool meanwhile: with two cores the
/// pool has two threads, and a test that blocks one (waiting for a child process, or
/// exploring thousands of crash states) slows every test that needs it, such as a proxy
/// test's server. `body` runs exactly once, on that thread, while the caller waits.
///
/// ```swift
/// let lines = try await offThePool { child.readAllLines() }
/// ```
public func offThePool<T>(_ body: @escaping () throws -> T) async throws -> T {
    let work = Unchecked(body)
    let result: Unchecked<Result<T, any Error>> = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: Unchecked(Result { try work.value() })) }.start()
    }
    return try result.value.get()
}

/// ``offThePool(_:)`` for a body that cannot throw.
public func offThePool<T>(_ body: @escaping () -> T) async -> T {
    let work = Unchecked(body)
    let result: Unchecked<T> = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: Unchecked(work.value())) }.start()
    }
    return result.value
}

/// Work started on a thread of its own at once, when it is made, not when a thread of the
/// cooperative pool gets to it (`async let` waits for one, and under a full test run on two
/// cores that wait has lasted seconds): a client that must send while the test reads.
///
/// ```swift
/// let sending = ThreadTask { client.blockingSend(filler: size) }
/// let answer = await client.response()
/// let sent = await sending.value
/// ```
public final class ThreadTask<T>: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private var result: T?

    public init(_ body: @escaping () -> T) {
        let work = Unchecked(body)
        Thread {
            self.result = work.value()
            self.finished.signal()
        }.start()
    }

    /// Whether the work finishes within `seconds` (waited for off the pool): a test's way to
    /// tell work that waits for something it must not wait for.
    public func finishes(within seconds: Double) async -> Bool {
        await offThePool {
            guard self.finished.wait(timeout: .now() + seconds) == .success else { return false }
            self.finished.signal()
            return true
        }
    }

    /// What the work returned, once it has (waited for off the pool).
    public var value: T {
        get async {
            await offThePool {
                self.finished.wait()
                self.finished.signal()   // a second reader of `value` does not wait forever
                return self.result!
            }
        }
    }
}

/// A value handed to one other thread while its sender waits for it: never used from two
/// threads at once.
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
