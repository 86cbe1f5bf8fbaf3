import Foundation
import HTTPTypes
import StashCache
import StashCore

/// Bodies too large to hold in memory: written to a file of the disk cache while they
/// arrive, adopted under a key of their own when complete, referred to by the stored variant
/// (``StoredResponse/bodyFile``), streamed from the file on a hit, and removed with the
/// variant.
extension HTTPCache {
    /// How much of a body arriving in parts is held in memory to store it: beyond this, a
    /// cache with a directory writes it to a file as it arrives.
    static let streamedBodyKeptInMemory = 1 << 20
    /// How much of a body arriving in parts a cache without a directory (shared storage, or
    /// memory, where its capacity is also a limit) holds to store it; longer bodies pass
    /// through unstored.
    static let largestStreamedBodyInMemory = 64 << 20

    /// `body` of `response`, handed to `store` once read whole and correctly framed; with
    /// `inFiles` and a directory, bodies over ``streamedBodyKeptInMemory`` go to a file on
    /// their way (bodies larger than the disk capacity are not stored).
    func storing(
        _ body: HTTPBodyStream, of response: HTTPResponse, inFiles: Bool,
        _ store: @escaping @Sendable (HTTPBodyStream.CompleteBody) async -> Void
    ) async -> HTTPBodyStream {
        let length = response.headerFields[.contentLength].flatMap { Int($0) }
        guard inFiles, let disk = hybrid?.disk else {
            // A body larger than a memory-only cache's capacity would not be kept anyway.
            let limit = sharedStorage == nil && hybrid == nil ? min(memoryCapacity, Self.largestStreamedBodyInMemory) : Self.largestStreamedBodyInMemory
            return await body.storing(memoryLimit: limit, spool: nil, fileLimit: 0, expectedLength: length, store)
        }
        return await body.storing(
            memoryLimit: Self.streamedBodyKeptInMemory, spool: { try? BodySpool(url: disk.makeIncomingFile()) },
            fileLimit: diskCapacity, expectedLength: length, store
        )
    }

    /// `stored` with `body` as its content: in memory, or a file the disk cache adopts under
    /// a key of its own; `nil` when the file cannot be adopted (it is deleted then).
    func completing(_ stored: StoredResponse, with body: HTTPBodyStream.CompleteBody) -> StoredResponse? {
        var complete = stored
        switch body {
        case let .data(data):
            complete.body = data
        case let .file(url, length):
            guard let disk = hybrid?.disk else {
                try? FileManager.default.removeItem(at: url)
                return nil
            }
            let key = Self.bodyFileKeyPrefix + UUID().uuidString
            guard (try? disk.adoptFile(at: url, forKey: key)) != nil else { return nil }
            complete.bodyFile = StoredResponse.BodyFile(key: key, length: length)
        }
        return complete
    }

    /// The start of the disk cache keys of body files (a URL's variants are under its
    /// ``PrimaryCacheKey/storageKey``, which never starts so).
    static let bodyFileKeyPrefix = "http-body:"

    /// `variants` without those whose body file the disk cache no longer has (trimmed, or
    /// lost in a crash).
    func withBodyFilesPresent(_ variants: [StoredResponse]) -> [StoredResponse] {
        guard let disk = hybrid?.disk, variants.contains(where: { $0.bodyFile != nil }) else { return variants }
        return variants.filter { variant in variant.bodyFile.map { disk.fileURL(for: $0.key) != nil } ?? true }
    }

    /// Removes the body files of `old` variants that `new` no longer refers to.
    func removeBodyFiles(of old: [StoredResponse], keeping new: [StoredResponse]) {
        guard let disk = hybrid?.disk else { return }
        let kept = Set(new.compactMap { $0.bodyFile?.key })
        for key in old.compactMap({ $0.bodyFile?.key }) where !kept.contains(key) { disk.removeValue(forKey: key) }
    }

    /// `stored` as an answer to `request` (``serve(_:to:outcome:now:)``), a body kept in a
    /// file streamed from it, range included; a file that is gone makes the body throw.
    func serveStreamed(_ stored: StoredResponse, to request: HTTPRequest, outcome: HTTPCacheOutcome, now: Date) -> StreamedHTTPResponse {
        guard let file = stored.bodyFile, request.method != .head, !Validation.clientConditionMatches(request, stored: stored) else {
            return StreamedHTTPResponse(serve(stored, to: request, outcome: outcome, now: now))
        }
        let answer = ByteRange.answer(request, stored: stored)
        let response = ByteRange.head(answer, from: stored, age: stored.currentAge(now: now))
        let range: Range<Int>
        switch answer {
        case .whole: range = 0..<file.length
        case let .partial(bytes): range = bytes.lowerBound..<(bytes.upperBound + 1)
        case .unsatisfiable: return StreamedHTTPResponse(response: response, body: HTTPBodyStream(Data()), outcome: outcome)
        }
        guard let path = hybrid?.disk.fileURL(for: file.key)?.path, let reader = BodyFileReader(path: path, range: range) else {
            let missing = StashError(.notFound, "the stored body of \(request.path ?? "/") is gone")
            return StreamedHTTPResponse(response: response, body: HTTPBodyStream(next: { throw missing }), outcome: outcome)
        }
        return StreamedHTTPResponse(response: response, body: reader.body, outcome: outcome)
    }

    /// `stored` with a body kept in a file read into memory, for the answers that hand out
    /// a whole body; `nil` when the file is gone.
    func loadingBody(_ stored: StoredResponse) -> StoredResponse? {
        guard let file = stored.bodyFile else { return stored }
        guard let url = hybrid?.disk.fileURL(for: file.key), let data = try? FileStore.read(url), data.count == file.length else { return nil }
        var loaded = stored
        loaded.bodyFile = nil
        loaded.body = data
        return loaded
    }
}
