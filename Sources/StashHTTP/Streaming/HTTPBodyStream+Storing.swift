import Foundation
import StashCore

extension HTTPBodyStream {
    /// A body read whole, as ``storing(memoryLimit:spool:fileLimit:expectedLength:decided:_:)`` hands
    /// it to be stored: in memory, or in a file of the disk cache's folder.
    enum CompleteBody: Sendable {
        case data(Data)
        case file(FileStore.StagedFile, length: Int)
    }

    /// This body, handing its whole bytes to `store` when it was read to its end. A whole
    /// body (which its transport has framed already) is handed over at once, whatever its
    /// size. A body in parts is handed over once its last part has been read (before the
    /// reader sees the end, so a reader that reaches the end finds the response stored),
    /// when it was correctly framed (as many bytes as `expectedLength` says, when there is
    /// one): kept in memory up to `memoryLimit` bytes, then moved to a file from `spool`
    /// (when given) and written there as it arrives, up to `fileLimit` bytes. A body that
    /// fails, is dropped part way or outgrows what it may take keeps nothing and stores
    /// nothing (its file is deleted). The body returned keeps this one's ``endsFramed``, so
    /// a layer after the cache can store it too.
    ///
    /// `decided` runs once, as soon as the outcome is known: after `store` returns, or when
    /// nothing will be stored (at once when `expectedLength` is over the limits; when the
    /// body fails, outgrows them or is dropped).
    func storing(
        memoryLimit: Int, spool: (@Sendable () -> BodySpool?)?, fileLimit: Int, expectedLength: Int?,
        decided: @escaping @Sendable () -> Void = {}, _ store: @escaping @Sendable (CompleteBody) async -> Void
    ) async -> HTTPBodyStream {
        let parts: @Sendable () async throws -> Data?
        switch source {
        case let .whole(data):
            await store(.data(data))
            decided()
            return self
        case let .parts(next):
            parts = next
        }
        if let expectedLength, expectedLength > Swift.max(memoryLimit, spool == nil ? 0 : fileLimit) {
            decided()
            return self
        }
        let kept = LockedValue(Kept.memory(Data()))
        let decision = StoreDecision(decided)
        return HTTPBodyStream(next: {
            let part: Data?
            do {
                part = try await parts()
            } catch {
                kept.withLock { $0 = .nothing }
                decision.made()
                throw error
            }
            guard let part else {
                let complete = kept.withLock { kept in defer { kept = .nothing }; return kept.complete(expectedLength) }
                if let complete { await store(complete) }
                decision.made()
                return nil
            }
            // Taken out of the lock to be appended (a spool file write is I/O): the body has
            // one reader, so nothing else touches it meanwhile.
            var current = kept.withLock { kept in defer { kept = .nothing }; return kept }
            current.append(part, memoryLimit: memoryLimit, spool: spool, fileLimit: fileLimit)
            if case .nothing = current { decision.made() }
            kept.withLock { $0 = current }
            return part
        }, endsFramed: endsFramed)
    }

    /// What a storing body has kept of the parts read so far.
    private enum Kept {
        case memory(Data)
        case file(BodySpool, length: Int)
        /// Nothing: the body outgrew its limits or could not be written.
        case nothing

        mutating func append(_ part: Data, memoryLimit: Int, spool: (@Sendable () -> BodySpool?)?, fileLimit: Int) {
            switch self {
            case .nothing:
                return
            case var .memory(data):
                self = .nothing // leaves `data` the only reference, so appending does not copy it
                if data.count + part.count <= memoryLimit {
                    data.append(part)
                    self = .memory(data)
                } else if data.count + part.count <= fileLimit, let file = spool?(),
                          (try? file.write(data)) != nil, (try? file.write(part)) != nil {
                    self = .file(file, length: data.count + part.count)
                }
            case let .file(file, length):
                self = .nothing
                if length + part.count <= fileLimit, (try? file.write(part)) != nil {
                    self = .file(file, length: length + part.count)
                }
            }
        }

        /// The body, when it is all here and `expectedLength` (if any) agrees.
        func complete(_ expectedLength: Int?) -> CompleteBody? {
            switch self {
            case .nothing:
                return nil
            case let .memory(data):
                return expectedLength == nil || expectedLength == data.count ? .data(data) : nil
            case let .file(file, length):
                guard expectedLength == nil || expectedLength == length, let finished = try? file.finish() else { return nil }
                return .file(finished, length: length)
            }
        }
    }
}
