package import HTTPTypes

/// Hop-by-hop fields (RFC 9110 §7.6.1): they describe one connection, so a cache never
/// stores them and a proxy never forwards them. The one list of the package, used by
/// ``StorageRules`` and by the caching proxy.
package enum HopByHop {
    /// The lowercased names of the fields that are always hop-by-hop.
    package static let names: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer",
    ]

    /// ``names`` plus the lowercased names `fields`' `Connection` lists.
    package static func names(in fields: HTTPFields) -> Set<String> {
        var dropped = names
        for name in FieldList.members(fields[values: .connection]) { dropped.insert(name.lowercased()) }
        return dropped
    }

    /// `fields` without hop-by-hop fields, those `Connection` names, and `also` (lowercased).
    package static func removing(from fields: HTTPFields, also extra: Set<String> = []) -> HTTPFields {
        let dropped = names(in: fields).union(extra)
        return HTTPFields(fields.filter { !dropped.contains($0.name.canonicalName) })
    }
}
