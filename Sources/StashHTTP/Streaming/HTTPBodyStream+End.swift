import StashCore

extension HTTPBodyStream {
    /// This body, calling `over` once when it is over: read to its end, failed, or dropped
    /// unread (a whole body is over at once).
    func finishing(_ over: @escaping @Sendable () -> Void) -> HTTPBodyStream {
        guard case let .parts(next) = source else {
            over()
            return self
        }
        let end = End(over)
        return HTTPBodyStream(next: {
            do {
                guard let part = try await next() else {
                    end.finish()
                    return nil
                }
                return part
            } catch {
                end.finish()
                throw error
            }
        })
    }

    /// Calls its action once: when told, or at the latest when the body that holds it is
    /// dropped.
    private final class End: Sendable {
        private let action: LockedValue<(@Sendable () -> Void)?>
        init(_ action: @escaping @Sendable () -> Void) { self.action = LockedValue(action) }
        func finish() { action.withLock { action in defer { action = nil }; return action }?() }
        deinit { finish() }
    }
}
