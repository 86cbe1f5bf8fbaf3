package import Foundation
package import HTTPTypes

extension HTTPFuzzing {
    /// What the cache makes of a response an origin sent (`response`, its whole `body`) to
    /// a plain `GET`, in each mode: whether the storage rules admit it, the stored record it
    /// would write (encoded and decoded again: it must read back the same), the hit a later
    /// `GET` would get, and the update the same fields would make as a `304` about it.
    ///
    /// ```swift
    /// let served = HTTPFuzzing.originResponse(response, body: body)
    /// ```
    ///
    /// - returns: The responses the cache would serve from what it stored (none when it
    ///   stores nothing), or `nil` when a stored record does not read back as written, a
    ///   finding like a crash.
    package static func originResponse(_ response: HTTPResponse, body: Data) -> [HTTPResponse]? {
        let request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/fuzz")
        guard let key = PrimaryCacheKey(request) else { return [] }
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var served: [HTTPResponse] = []
        for cache in servingCaches {
            guard let admitted = cache.admit(response, body: body, for: request, requestTime: now, responseTime: now) else { continue }
            let stored = admitted.stored
            guard let again = try? StoredResponseCoding.decode(StoredResponseCoding.encode(key: key.storageKey, variants: [stored])),
                  again.variants == [stored] else { return nil }
            for variant in again.variants {
                served.append(cache.serve(variant, toPlain: .get, now: now.addingTimeInterval(1)).0)
                _ = serve(variant)
                if case .freshen(let freshened) = cache.admitUpdate(of: variant, by: response, for: request, requestTime: now, responseTime: now) {
                    served.append(freshened.stored.response(age: 0))
                }
            }
        }
        return served
    }
}
