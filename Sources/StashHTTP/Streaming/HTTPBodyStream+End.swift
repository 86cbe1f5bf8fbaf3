import Foundation

extension HTTPBodyStream {
    /// This body, finishing `ended` once it is over: read to its end, failed, or dropped
    /// unread (a whole body is over at once).
    func finishing(_ ended: AsyncStream<Void>.Continuation) -> HTTPBodyStream {
        guard case let .parts(next) = source else {
            ended.finish()
            return self
        }
        let end = End(ended)
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

    /// Finishes its continuation when told, or at the latest when the body that holds it
    /// is dropped.
    private final class End: Sendable {
        let continuation: AsyncStream<Void>.Continuation
        init(_ continuation: AsyncStream<Void>.Continuation) { self.continuation = continuation }
        func finish() { continuation.finish() }
        deinit { continuation.finish() }
    }
}
