package import StashHTTP

/// The request fields the caching proxy never forwards upstream, so the cache never sees
/// them either: the hop-by-hop fields (``StashHTTP/HopByHop``) and the end-to-end fields the
/// proxy sets itself or keeps from the upstream. The one list, used by the proxy when it
/// builds the cache's request and by ``PlainRequestHead`` when it sorts a head's fields.
///
/// ```swift
/// let forwardsAll = !DroppedRequestFields.names.containsAny(of: request.headerFields)
/// ```
package enum DroppedRequestFields {
    /// The lowercased names of the end-to-end fields the proxy sets itself (`Host`,
    /// `Content-Length`) or keeps from the upstream (`Proxy-Authorization`).
    package static let endToEnd: Set<String> = ["host", "content-length", "proxy-authorization"]

    /// Every field never forwarded, whatever `Connection` names (which is one of them).
    package static let names = FieldNameSet(spelled: HopByHop.names.union(endToEnd))
}
