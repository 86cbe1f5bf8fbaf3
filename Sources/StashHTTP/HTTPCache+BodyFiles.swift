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
    /// The share of ``diskCapacity`` one stored body may take at most (1/8, as nginx's and
    /// Squid's per-object limits keep one object from evicting everything else); longer
    /// bodies pass through unstored.
    static let largestBodyShareOfDisk = 8

    /// `body` of `response` passed on, and stored as `admitted` under `key` once read whole
    /// and correctly framed (in place of the variant with the same selecting fields;
    /// `known` as for ``replace(_:key:in:)``): the one way a response is stored while it
    /// streams, whatever the method (`GET`, or a `POST` that is the target's representation).
    /// With `inFiles` and a directory, bodies over ``streamedBodyKeptInMemory`` go to a file
    /// on their way (bodies over `diskCapacity / largestBodyShareOfDisk` are not stored).
    /// `decided` runs once it is known whether the response is stored (see
    /// ``HTTPBodyStream/storing(memoryLimit:spool:fileLimit:expectedLength:decided:_:)``).
    func storing(
        _ body: HTTPBodyStream, of response: HTTPResponse, as admitted: AdmittedResponse, key: PrimaryCacheKey, inFiles: Bool,
        known: [StoredResponse]? = nil, decided: @escaping @Sendable () -> Void = {}
    ) async -> HTTPBodyStream {
        let length = response.headerFields[.contentLength].flatMap { Int($0) }
        if !body.endsFramed, length == nil, !Self.isChunked(response), !Self.hasNoContent(response) {
            // Ended by the connection closing: a cut connection would end it just the same,
            // so whatever arrives cannot be told complete (RFC 9111 §3.3), and is not stored.
            // (A transport that frames the end itself, HTTP/2's END_STREAM, says so.)
            decided()
            return body
        }
        let store: @Sendable (HTTPBodyStream.CompleteBody) async -> Void = { body in
            guard let complete = self.completing(admitted, with: body) else { return }
            await self.replace(complete, key: key, in: known)
        }
        guard inFiles, let disk = hybrid?.disk else {
            // A body larger than a memory-only cache's capacity would not be kept anyway.
            let limit = sharedStorage == nil && hybrid == nil ? min(memoryCapacity, Self.largestStreamedBodyInMemory) : Self.largestStreamedBodyInMemory
            return await body.storing(memoryLimit: limit, spool: nil, fileLimit: 0, expectedLength: length, decided: decided, store)
        }
        return await body.storing(
            memoryLimit: Self.streamedBodyKeptInMemory, spool: { (try? disk.openIncomingFile()).map { BodySpool($0.file, descriptor: $0.descriptor) } },
            fileLimit: diskCapacity / Self.largestBodyShareOfDisk, expectedLength: length, decided: decided, store
        )
    }

    /// Whether `response` has no content by definition (`1xx`, `204`, `304`: RFC 9112
    /// §6.3), so that it ends with its head, framed, whatever its fields say.
    static func hasNoContent(_ response: HTTPResponse) -> Bool {
        response.status.kind == .informational || response.status == .noContent || response.status == .notModified
    }

    /// Whether `response`'s body is framed by chunked transfer coding (its last chunk marks
    /// the end).
    static func isChunked(_ response: HTTPResponse) -> Bool {
        response.headerFields[values: .transferEncoding].last?.split(separator: ",").last?
            .trimmingCharacters(in: .whitespaces).lowercased() == "chunked"
    }

    /// `admitted` with `body` as its content: in memory, or a file the disk cache adopts
    /// under a key of its own; `nil` when the file cannot be adopted (it is deleted then).
    func completing(_ admitted: AdmittedResponse, with body: HTTPBodyStream.CompleteBody) -> AdmittedResponse? {
        admitted.with { complete in
            switch body {
            case let .data(data):
                complete.body = data
                return true
            case let .file(file, length):
                // Only a cache with a disk cache makes files (`storing`).
                let key = Self.bodyFileKeyPrefix + UUID().uuidString
                guard let disk = hybrid?.disk else {
                    file.discard()
                    return false
                }
                // The adoption deletes the file when it fails.
                guard (try? disk.adopt(file, size: length, forKey: key)) != nil else { return false }
                complete.bodyFile = StoredResponse.BodyFile(key: key, length: length)
                return true
            }
        }
    }

    /// The start of the disk cache keys of body files (a URL's variants are under its
    /// ``PrimaryCacheKey/storageKey``, which never starts so).
    static let bodyFileKeyPrefix = "http-body:"

    /// Removes the body files of `old` variants that `new` no longer refers to.
    func removeBodyFiles(of old: [StoredResponse], keeping new: [StoredResponse]) {
        guard let disk = hybrid?.disk else { return }
        let kept = Set(new.compactMap { $0.bodyFile?.key })
        for key in old.compactMap({ $0.bodyFile?.key }) where !kept.contains(key) { disk.removeValue(forKey: key) }
    }

    /// `stored` as an answer to `request` (``serve(_:to:now:)``) with its body as a
    /// stream: a body kept in a file is opened now (counting an access to it, which keeps a
    /// popular body from being trimmed first) and read as the stream is. `nil` when that
    /// file cannot be opened, and the caller treats the request as a miss: when the file is
    /// gone (trimmed, deleted) the variant is dropped from `key`'s variants; when it is
    /// there but cannot be opened now (the process out of file descriptors, permission) the
    /// variant stays for later requests.
    func streamed(_ stored: StoredResponse, to request: HTTPRequest, key: PrimaryCacheKey, outcome: HTTPCacheOutcome, now: Date) -> StreamedHTTPResponse? {
        let (response, body) = serve(stored, to: request, now: now)
        switch body {
        case let .data(data):
            return StreamedHTTPResponse(response: response, body: HTTPBodyStream(data), outcome: outcome)
        case let .file(bodyFile, range):
            guard let file = openBodyFile(bodyFile, of: key) else { return nil }
            return StreamedHTTPResponse(response: response, body: BodyFileReader(file, key: bodyFile, range: range).body, outcome: outcome)
        }
    }

    /// The bytes of `body` in memory, reading only its range of a body file; `nil` when
    /// that file cannot be opened (dropping the variant from `key`'s when it is gone, as
    /// ``streamed(_:to:key:outcome:now:)`` does) or is shorter than it should be.
    func loaded(_ body: BodySource, of key: PrimaryCacheKey) -> Data? {
        switch body {
        case let .data(data):
            return data
        case let .file(bodyFile, range):
            guard let file = openBodyFile(bodyFile, of: key) else { return nil }
            return try? BodyFileReader(file, key: bodyFile, range: range).remaining()
        }
    }

    /// The body file under the disk cache key `bodyFile`, opened; `nil` when it cannot be,
    /// after dropping the variants of `key` that refer to it when it is gone.
    private func openBodyFile(_ bodyFile: String, of key: PrimaryCacheKey) -> FileHandle? {
        guard let disk = hybrid?.disk else { return nil }
        do {
            if let file = try disk.openFileReportingFailure(forKey: bodyFile) { return file }
        } catch {
            // There, but not to be opened now: a miss that keeps the variant and its file.
            return nil
        }
        dropVariant(bodyFile: bodyFile, key: key)
        return nil
    }

    /// Removes the variants of `key` in this process's storage whose body is the file under
    /// the disk cache key `bodyFile`, after that file was found gone. By the file, not the
    /// whole variant: a variant freshened since (a `304`) still names the same file.
    func dropVariant(bodyFile: String, key: PrimaryCacheKey) {
        let current = localVariants(for: key)
        let kept = current.filter { $0.bodyFile?.key != bodyFile }
        guard kept.count != current.count else { return }
        setLocalVariants(kept, replacing: current, for: key)
    }
}
