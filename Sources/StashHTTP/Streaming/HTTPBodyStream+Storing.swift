import Foundation
import StashCore

extension HTTPBodyStream {
    /// This body, handing its whole bytes to `store` when it was read to its end. A whole
    /// body (which its transport has framed already) is handed over at once, whatever its
    /// size; a body in parts when it was correctly framed (as many bytes as `expectedLength`
    /// says, when there is one) and no longer than `limit` (what keeping it costs in memory),
    /// once its last part has been read (before the reader sees the end), so a reader that
    /// reaches the end finds the response stored. A body that fails, is dropped part way or grows past `limit` keeps
    /// nothing and stores nothing.
    func storing(limit: Int, expectedLength: Int?, _ store: @escaping @Sendable (Data) async -> Void) async -> HTTPBodyStream {
        let framed: @Sendable (Int) -> Bool = { count in expectedLength == nil || expectedLength == count }
        switch source {
        case let .whole(data):
            await store(data)
            return self
        case let .parts(next):
            let kept = LockedValue<Data?>(Data())
            return HTTPBodyStream(next: {
                guard let part = try await next() else {
                    if let data = kept.withLock({ kept in defer { kept = nil }; return kept }), framed(data.count) { await store(data) }
                    return nil
                }
                kept.withLock { kept in
                    guard let count = kept?.count else { return }
                    if count + part.count <= limit { kept?.append(part) } else { kept = nil }
                }
                return part
            })
        }
    }
}
