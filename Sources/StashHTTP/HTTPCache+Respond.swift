public import Foundation
public import HTTPTypes
import StashCore

/// Sends one request over the network: the transport half of a caching client or proxy.
public typealias HTTPSend = @Sendable (HTTPRequest, Data) async throws -> (HTTPResponse, Data)

/// Sends one request over the network and returns the response as soon as its head has
/// arrived, with the body still arriving: the transport half of a streaming proxy.
///
/// ```swift
/// let send: HTTPStreamingSend = { request, body in try await transport.stream(request, body: body) }
/// ```
///
/// Called from any task, possibly several at once; the body it returns is read by one.
public typealias HTTPStreamingSend = @Sendable (HTTPRequest, Data) async throws -> (HTTPResponse, HTTPBodyStream)

/// Answering a request through the cache: the whole of RFC 9111's flow in one call.
extension HTTPCache {
    /// Answers `request` from the cache, the origin (through `send`), or both.
    ///
    /// ```swift
    /// let answer = try await cache.respond(to: request) { request, body in
    ///     try await transport.send(request, body: body)
    /// }
    /// ```
    ///
    /// Fresh stored responses are served with an `Age`; stale ones are validated with a
    /// conditional request and served on `304`; misses are fetched and stored when the RFC
    /// allows. Successful unsafe methods invalidate the target and same-origin
    /// `Location` / `Content-Location`. When the origin fails, stale content is served if
    /// HTTP allows it, with outcome ``HTTPCacheOutcome/staleAfterNetworkFailure``.
    /// ``streamResponse(to:body:policy:revalidatesInBackground:send:)`` is the same flow
    /// for bodies that should not be held whole in memory.
    ///
    /// - parameters:
    ///   - request: The request; it needs a scheme and authority (or `Host`) to be cached.
    ///   - body: The request content.
    ///   - policy: How this request uses the cache.
    ///   - revalidatesInBackground: Whether a response within `stale-while-revalidate` is
    ///     served at once and refreshed by a background call to `send`; when `false` it is
    ///     validated before use (for a `send` that must not outlive this call).
    ///   - send: Performs one exchange with the origin.
    /// - throws: What `send` throws, when no stale response may stand in.
    public func respond(
        to request: HTTPRequest, body: Data = Data(), policy: RequestCachePolicy = .useProtocolCachePolicy,
        revalidatesInBackground: Bool = true, send: @escaping HTTPSend
    ) async throws -> CachedHTTPResponse {
        try await streamResponse(to: request, body: body, policy: policy, revalidatesInBackground: revalidatesInBackground) { request, body in
            let (response, data) = try await send(request, body)
            return (response, HTTPBodyStream(data))
        }.collected()
    }

    /// Answers `request` like ``respond(to:body:policy:revalidatesInBackground:send:)``,
    /// passing the origin's body on as it arrives instead of collecting it first.
    ///
    /// ```swift
    /// let answer = try await cache.streamResponse(to: request) { request, body in
    ///     try await transport.stream(request, body: body)
    /// }
    /// for try await part in answer.body { try await client.write(part) }
    /// ```
    ///
    /// The answer comes back once the origin's response head has arrived. A response the
    /// cache may store is stored when its body has been read to its end and was correctly
    /// framed: as long as its `Content-Length` says, or chunked (`Transfer-Encoding`) to its
    /// last chunk; a `204` (or `304`, `1xx`) has no content and ends with its head. A body with neither, which only the connection's close ends (HTTP/1.0
    /// style), is passed on but never stored, since a cut connection ends it the same way,
    /// unless the transport says it framed the end itself (``HTTPBodyStream/init(next:endsFramed:)``:
    /// HTTP/2, as `AsyncHTTPClientTransport` marks it). A body that fails part way, or is not
    /// read to its end, stores nothing. With a directory, a body over 1 MiB
    /// is written to a file of the disk cache as it arrives (never held whole in memory),
    /// adopted by the disk cache when complete, and streamed from that file on later hits
    /// (ranges included); one body may take at most an eighth of ``diskCapacity`` (as
    /// nginx and Squid cap one object, so that it cannot evict everything else), and longer
    /// ones pass through unstored. Without a directory (memory only, or shared storage)
    /// bodies up to 64 MiB are stored. A hit whose body file is gone (trimmed, deleted) is
    /// a miss: the variant is dropped and the origin asked. Concurrent identical misses
    /// wait until it is decided whether the first one's response is stored (at once when
    /// it may not be, else when its body is stored or abandoned), then use what it stored.
    ///
    /// **Durability:** a response is stored only once its body is whole; a crash before that
    /// stores nothing, and an incoming body file it leaves is deleted when the cache next
    /// opens. A stored response survives a crash of the process as the cache's other
    /// stores do (the disk cache's flush). **Threads:** thread-safe; each answer's body is
    /// read by one task.
    ///
    /// - parameters: As for ``respond(to:body:policy:revalidatesInBackground:send:)``.
    /// - throws: What `send` throws, when no stale response may stand in. Errors while the
    ///   body is read come from reading ``StreamedHTTPResponse/body``.
    public func streamResponse(
        to request: HTTPRequest, body: Data = Data(), policy: RequestCachePolicy = .useProtocolCachePolicy,
        revalidatesInBackground: Bool = true, send: @escaping HTTPStreamingSend
    ) async throws -> StreamedHTTPResponse {
        guard let key = PrimaryCacheKey(request) else { return try await passThrough(request, body: body, send: send) }
        if !Invalidation.safeMethods.contains(request.method) {
            let requestTime = clock.now
            let (response, data) = try await send(request, body)
            for target in Invalidation.keys(request: request, response: response, key: key) {
                await setVariants([], replacing: nil, for: target)
            }
            // Only a response that may be stored is kept while it streams, decided before a
            // byte of it is read, as for a GET.
            guard let admitted = representationToStore(response, post: request, key: key, requestTime: requestTime, responseTime: clock.now) else {
                return StreamedHTTPResponse(response: response, body: data, outcome: .network)
            }
            let body = await storing(data, of: response, as: admitted, key: key, inFiles: false)
            return StreamedHTTPResponse(response: response, body: body, outcome: .network)
        }
        guard request.method == .get || request.method == .head else {
            return try await passThrough(request, body: body, send: send)
        }
        let directives = RequestDirectives(request.headerFields)
        let ignoresStore = policy == .reloadIgnoringLocalCacheData || directives.noStore
        let read: [StoredResponse]? = if ignoresStore { nil } else { await variants(for: key) }
        let stored = read.flatMap { select(request.headerFields, from: $0) }
        let now = clock.now
        let trip = Trip(
            request: request, body: body, key: key, directives: directives, policy: policy, send: send,
            sharedVariants: sharedStorage == nil ? nil : read
        )
        switch policy {
        case .returnCacheDataDontLoad:
            guard let stored else { return StreamedHTTPResponse(unavailable()) }
            return try await hit(stored, trip, now: now)
        case .returnCacheDataElseLoad:
            if let stored { return try await hit(stored, trip, now: now) }
            return try await fetch(trip, stored: nil)
        case .reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData:
            return try await fetch(trip, stored: stored)
        case .useProtocolCachePolicy:
            if let stored {
                switch Reuse.decide(stored, fields: request.headerFields, directives: directives, mode: mode, now: now) {
                case .fresh, .staleAllowed:
                    return try await hit(stored, trip, now: now)
                case .staleWhileRevalidate where revalidatesInBackground:
                    return try await hit(stored, trip, now: now, revalidatesInBackground: true)
                case .mustValidate, .staleWhileRevalidate:
                    break
                }
            }
            if directives.onlyIfCached { return StreamedHTTPResponse(unavailable()) }
            return try await fetch(trip, stored: stored)
        }
    }

    /// One request on its way through the cache.
    struct Trip: Sendable {
        var request: HTTPRequest
        var body: Data
        var key: PrimaryCacheKey
        var directives: RequestDirectives
        var policy: RequestCachePolicy
        var send: HTTPStreamingSend
        /// The variants the lookup read from shared storage, which the store that follows
        /// starts from instead of reading them again (`nil`: local storage, or not read).
        var sharedVariants: [StoredResponse]? = nil
        /// A stale-while-revalidate revalidation, whose answer no one reads: a `304`
        /// freshens the stored response without opening its body file or counting bytes
        /// saved, a failure falls back to nothing stale, and a new response counts no miss
        /// (the request was counted as a hit).
        var isBackground = false
    }

    /// `stored` as the answer to `trip`, its body file (if any) opened now; when that file
    /// cannot be opened, the request is a miss (never a `200` whose body fails), and the
    /// variant is dropped if the file is gone. `revalidatesInBackground` (stale-while-
    /// revalidate) asks the origin about `stored` once the hit stands, never when it turned
    /// into a miss, which is then the one trip to the origin.
    private func hit(_ stored: StoredResponse, _ trip: Trip, now: Date, revalidatesInBackground: Bool = false) async throws -> StreamedHTTPResponse {
        guard let answer = streamed(stored, to: trip.request, key: trip.key, outcome: .cache, now: now) else {
            if trip.policy == .returnCacheDataDontLoad || trip.directives.onlyIfCached { return StreamedHTTPResponse(unavailable()) }
            return try await fetch(trip, stored: nil)
        }
        record { $0.hits += 1; $0.addBytesSaved(stored.bodyLength) }
        if revalidatesInBackground { revalidateInBackground(trip, stored: stored) }
        return answer
    }

    /// Asks the origin about `stored` in a task of its own (stale-while-revalidate), which
    /// ``flush()`` waits for, unless a revalidation of the same variant (URL and the
    /// request fields its `Vary` selects by) is running already: concurrent stale hits on
    /// it make one trip to the origin, and each stale variant of a URL is revalidated. Only a new response from the
    /// origin is read, so that its body is stored; a `304` freshens the stored response
    /// without opening its body file (``Trip/isBackground``).
    private func revalidateInBackground(_ trip: Trip, stored: StoredResponse) {
        var trip = trip
        trip.isBackground = true
        // One slot per variant: field names are lowercased tokens and values have no line
        // break, so the lines tell variants apart (a field the request lacked: its name alone).
        let variant = stored.selectingFields.sorted { $0.key < $1.key }
            .map { name, value in value.map { "\(name):\($0)" } ?? name }
        backgroundRevalidations.runUnlessRunning(([trip.key.storageKey] + variant).joined(separator: "\n")) { [trip] in
            if let answer = try? await self.exchange(trip, stored: stored), answer.outcome == .network {
                try? await answer.body.drain()
            }
        }
    }

    private func passThrough(_ request: HTTPRequest, body: Data, send: HTTPStreamingSend) async throws -> StreamedHTTPResponse {
        let (response, data) = try await send(request, body)
        return StreamedHTTPResponse(response: response, body: data, outcome: .network)
    }

    /// Goes to the origin, sharing the trip with identical concurrent misses when
    /// ``collapsesRequests`` is on. Waiting requests then use the stored response if the
    /// first one left a reusable one, and go to the origin themselves otherwise. They wait
    /// until it is decided whether the first one's response is stored: at once when it may
    /// not be, else when its body is stored or abandoned (failed, dropped, too large), so a
    /// streamed body is not fetched again while it is still arriving, but at most
    /// ``collapseWait`` (a slow reader of the first one holds no one else back).
    private func fetch(_ trip: Trip, stored: StoredResponse?) async throws -> StreamedHTTPResponse {
        guard collapsesRequests, stored == nil, trip.request.method == .get, trip.policy == .useProtocolCachePolicy else {
            return try await exchange(trip, stored: stored)
        }
        let collapseKey = Self.collapseKey(trip)
        let (gate, isLeader) = inFlight.withLock { running -> (CollapseGate, Bool) in
            if let gate = running[collapseKey] { return (gate, false) }
            let gate = CollapseGate()
            running[collapseKey] = gate
            return (gate, true)
        }
        if isLeader {
            // Nothing shared holds the leader's answer: a body its reader drops releases the
            // followers as surely as one read to its end.
            let release: @Sendable () -> Void = { [inFlight] in
                inFlight.withLock { running in
                    if running[collapseKey] === gate { running[collapseKey] = nil }
                }
                gate.open()
            }
            do {
                return try await exchange(trip, stored: nil, decided: release)
            } catch {
                release()
                throw error
            }
        }
        await gate.wait(atMost: Self.collapseWait)
        try Task.checkCancellation()
        let now = clock.now
        var trip = trip
        trip.sharedVariants = nil
        if let fresh = await lookup(trip.request, key: trip.key),
           Reuse.decide(fresh, fields: trip.request.headerFields, directives: trip.directives, mode: mode, now: now) == .fresh {
            return try await hit(fresh, trip, now: now)
        }
        return try await exchange(trip, stored: nil)
    }

    /// How long an identical miss waits for the first one's body before going to the
    /// origin itself.
    static let collapseWait: Duration = .seconds(5)

    private static func collapseKey(_ trip: Trip) -> String {
        trip.request.headerFields.map { $0.name.canonicalName + ":" + $0.value }.sorted()
            .reduce(trip.key.description) { $0 + "\n" + $1 }
    }

    /// One exchange with the origin: conditional when `stored` has validators, then a 304
    /// freshens the stored response, a server error or failure may fall back to stale
    /// content, and anything else is stored when allowed. `decided` runs once it is known
    /// whether a response is stored (at once when none will be).
    func exchange(_ trip: Trip, stored: StoredResponse?, decided: @escaping @Sendable () -> Void = {}) async throws -> StreamedHTTPResponse {
        let request = trip.request
        let conditional = request.method == .get ? stored.flatMap { Validation.conditionalRequest(request, for: $0) } : nil
        let requestTime = clock.now
        let response: HTTPResponse
        let data: HTTPBodyStream
        do {
            (response, data) = try await trip.send(conditional ?? request, trip.body)
        } catch {
            decided()
            if !trip.isBackground, let stale = staleFallback(stored, trip, disconnected: true) { return stale }
            throw error
        }
        let responseTime = clock.now
        if let stored, conditional != nil, response.status == .notModified {
            // A 304 has no content; reading its end frees the connection for the next request.
            try? await data.drain()
            guard Validation.notModified(response.headerFields, describes: stored) else {
                return try await exchange(trip, stored: nil, decided: decided)
            }
            let update = admitUpdate(of: stored, by: response, for: request, requestTime: requestTime, responseTime: responseTime)
            if case .drop = update {
                // The answer selects by other fields: the variant goes, and the request is
                // asked again without a condition.
                await removeVariant(stored, key: trip.key)
                return try await exchange(trip, stored: nil, decided: decided)
            }
            let admitted: AdmittedResponse? = if case .freshen(let admitted) = update { admitted } else { nil }
            if trip.isBackground {
                // No one reads the answer: nothing to open. (A body file gone meanwhile is
                // found by the next hit, which drops the variant.)
                if let admitted { await replace(admitted, key: trip.key, in: trip.sharedVariants) }
                decided()
                record { $0.revalidations += 1 }
                return StreamedHTTPResponse(response: response, body: HTTPBodyStream(Data()), outcome: .revalidated)
            }
            // This client's answer is the stored response with the 304's fields, whether or
            // not the variant may take them. Opened before the freshened response replaces
            // the stored one, so that a body file gone meanwhile drops the stored variant
            // rather than one just written.
            let answered = admitted?.stored ?? Validation.freshen(stored, with: response.headerFields, requestTime: requestTime, responseTime: responseTime, mode: mode)
            guard var answer = streamed(answered, to: request, key: trip.key, outcome: .revalidated, now: responseTime) else {
                // Its body file cannot be opened: fetched again, whole.
                return try await exchange(trip, stored: nil, decided: decided)
            }
            if mode == .shared {
                // A shared cache keeps no `Set-Cookie`; the 304's is this client's alone.
                for cookie in response.headerFields where cookie.name == .setCookie { answer.response.headerFields.append(cookie) }
            }
            if let admitted { await replace(admitted, key: trip.key, in: trip.sharedVariants) }
            decided()
            record { $0.revalidations += 1; $0.addBytesSaved(stored.bodyLength) }
            return answer
        }
        if response.status.code >= 500, !trip.isBackground, let stale = staleFallback(stored, trip, disconnected: false) {
            decided()
            return stale
        }
        if !trip.isBackground { record { $0.misses += 1 } }
        if request.method == .get, let admitted = admit(response, body: Data(), for: request, requestTime: requestTime, responseTime: responseTime) {
            let body = await storing(data, of: response, as: admitted, key: trip.key, inFiles: true, known: trip.sharedVariants, decided: decided)
            return StreamedHTTPResponse(response: response, body: body, outcome: .network)
        } else if request.method == .head {
            await update(fromHead: response, request: request, key: trip.key, requestTime: requestTime, responseTime: responseTime)
        }
        decided()
        return StreamedHTTPResponse(response: response, body: data, outcome: .network)
    }

    private func staleFallback(_ stored: StoredResponse?, _ trip: Trip, disconnected: Bool) -> StreamedHTTPResponse? {
        guard let stored else { return nil }
        let now = clock.now
        let allowed = trip.policy == .returnCacheDataElseLoad
            || Reuse.mayServeStaleOnError(stored, directives: trip.directives, mode: mode, now: now, disconnected: disconnected)
        guard allowed else { return nil }
        guard let answer = streamed(stored, to: trip.request, key: trip.key, outcome: .staleAfterNetworkFailure, now: now) else { return nil }
        record { $0.staleServed += 1; $0.addBytesSaved(stored.bodyLength) }
        return answer
    }
}
