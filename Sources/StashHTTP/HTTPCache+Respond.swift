public import Foundation
public import HTTPTypes
import StashCore

/// Sends one request over the network: the transport half of a caching client or proxy.
public typealias HTTPSend = @Sendable (HTTPRequest, Data) async throws -> (HTTPResponse, Data)

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
        guard let key = PrimaryCacheKey(request) else { return try await passThrough(request, body: body, send: send) }
        if !Invalidation.safeMethods.contains(request.method) {
            let requestTime = clock.now
            let (response, data) = try await send(request, body)
            for target in Invalidation.keys(request: request, response: response, key: key) {
                await setVariants([], for: target)
            }
            await storeIfRepresentation(response, body: data, post: request, key: key, requestTime: requestTime, responseTime: clock.now)
            return CachedHTTPResponse(response: response, body: data, outcome: .network)
        }
        guard request.method == .get || request.method == .head else {
            return try await passThrough(request, body: body, send: send)
        }
        let directives = RequestDirectives(request.headerFields)
        let ignoresStore = policy == .reloadIgnoringLocalCacheData || directives.noStore
        let read: [StoredResponse]? = if ignoresStore { nil } else { await variants(for: key) }
        let stored = read.flatMap { Self.select(request, from: $0) }
        let now = clock.now
        let trip = Trip(
            request: request, body: body, key: key, directives: directives, policy: policy, send: send,
            sharedVariants: sharedStorage == nil ? nil : read
        )
        switch policy {
        case .returnCacheDataDontLoad:
            guard let stored else { return unavailable() }
            return hit(stored, trip, now: now)
        case .returnCacheDataElseLoad:
            if let stored { return hit(stored, trip, now: now) }
            return try await fetch(trip, stored: nil)
        case .reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData:
            return try await fetch(trip, stored: stored)
        case .useProtocolCachePolicy:
            if let stored {
                switch Reuse.decide(stored, request: request, directives: directives, mode: mode, now: now) {
                case .fresh, .staleAllowed:
                    return hit(stored, trip, now: now)
                case .staleWhileRevalidate where revalidatesInBackground:
                    Task { _ = try? await self.exchange(trip, stored: stored) }
                    return hit(stored, trip, now: now)
                case .mustValidate, .staleWhileRevalidate:
                    break
                }
            }
            if directives.onlyIfCached { return unavailable() }
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
        var send: HTTPSend
        /// The variants the lookup read from shared storage, which the store that follows
        /// starts from instead of reading them again (`nil`: local storage, or not read).
        var sharedVariants: [StoredResponse]? = nil
    }

    private func hit(_ stored: StoredResponse, _ trip: Trip, now: Date) -> CachedHTTPResponse {
        let answer = serve(stored, to: trip.request, outcome: .cache, now: now)
        record { $0.hits += 1; $0.bytesSaved += stored.body.count }
        return answer
    }

    private func passThrough(_ request: HTTPRequest, body: Data, send: HTTPSend) async throws -> CachedHTTPResponse {
        let (response, data) = try await send(request, body)
        return CachedHTTPResponse(response: response, body: data, outcome: .network)
    }

    /// Goes to the origin, sharing the trip with identical concurrent misses when
    /// ``collapsesRequests`` is on. Waiting requests then use the stored response if the
    /// first one left a reusable one, and go to the origin themselves otherwise.
    private func fetch(_ trip: Trip, stored: StoredResponse?) async throws -> CachedHTTPResponse {
        guard collapsesRequests, stored == nil, trip.request.method == .get, trip.policy == .useProtocolCachePolicy else {
            return try await exchange(trip, stored: stored)
        }
        let collapseKey = Self.collapseKey(trip)
        let (task, isLeader) = inFlight.withLock { running -> (Task<CachedHTTPResponse, any Error>, Bool) in
            if let task = running[collapseKey] { return (task, false) }
            let task = Task { try await self.exchange(trip, stored: nil) }
            running[collapseKey] = task
            return (task, true)
        }
        if isLeader {
            defer { inFlight.withLock { $0[collapseKey] = nil } }
            return try await task.value
        }
        _ = try? await task.value
        let now = clock.now
        var trip = trip
        trip.sharedVariants = nil
        if let fresh = await lookup(trip.request, key: trip.key),
           Reuse.decide(fresh, request: trip.request, directives: trip.directives, mode: mode, now: now) == .fresh {
            return hit(fresh, trip, now: now)
        }
        return try await exchange(trip, stored: nil)
    }

    private static func collapseKey(_ trip: Trip) -> String {
        trip.request.headerFields.map { $0.name.canonicalName + ":" + $0.value }.sorted()
            .reduce(trip.key.description) { $0 + "\n" + $1 }
    }

    /// One exchange with the origin: conditional when `stored` has validators, then a 304
    /// freshens the stored response, a server error or failure may fall back to stale
    /// content, and anything else is stored when allowed.
    func exchange(_ trip: Trip, stored: StoredResponse?) async throws -> CachedHTTPResponse {
        let request = trip.request
        let conditional = request.method == .get ? stored.flatMap { Validation.conditionalRequest(request, for: $0) } : nil
        let requestTime = clock.now
        let response: HTTPResponse
        let data: Data
        do {
            (response, data) = try await trip.send(conditional ?? request, trip.body)
        } catch {
            if let stale = staleFallback(stored, trip, disconnected: true) { return stale }
            throw error
        }
        let responseTime = clock.now
        if let stored, conditional != nil, response.status == .notModified {
            guard Validation.notModified(response.headerFields, describes: stored) else {
                return try await exchange(trip, stored: nil)
            }
            let freshened = Validation.freshen(
                stored, with: response.headerFields, requestTime: requestTime, responseTime: responseTime, mode: mode
            )
            if !CacheControl.governing(response.headerFields, mode: mode).contains("no-store") {
                await replace(freshened, key: trip.key, in: trip.sharedVariants)
            }
            record { $0.revalidations += 1; $0.bytesSaved += stored.body.count }
            return serve(freshened, to: request, outcome: .revalidated, now: responseTime)
        }
        if response.status.code >= 500, let stale = staleFallback(stored, trip, disconnected: false) { return stale }
        record { $0.misses += 1 }
        if request.method == .get {
            _ = await store(
                response, body: data, for: request, key: trip.key, requestTime: requestTime, responseTime: responseTime,
                variants: trip.sharedVariants
            )
        } else if request.method == .head {
            await update(fromHead: response, request: request, key: trip.key, requestTime: requestTime, responseTime: responseTime)
        }
        return CachedHTTPResponse(response: response, body: data, outcome: .network)
    }

    private func staleFallback(_ stored: StoredResponse?, _ trip: Trip, disconnected: Bool) -> CachedHTTPResponse? {
        guard let stored else { return nil }
        let now = clock.now
        let allowed = trip.policy == .returnCacheDataElseLoad
            || Reuse.mayServeStaleOnError(stored, directives: trip.directives, mode: mode, now: now, disconnected: disconnected)
        guard allowed else { return nil }
        record { $0.staleServed += 1; $0.bytesSaved += stored.body.count }
        return serve(stored, to: trip.request, outcome: .staleAfterNetworkFailure, now: now)
    }
}
