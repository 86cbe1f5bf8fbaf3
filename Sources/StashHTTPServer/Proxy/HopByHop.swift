import Foundation
import HTTPTypes

/// Hop-by-hop fields (RFC 9110 §7.6.1): they describe one connection and are never
/// forwarded by a proxy.
enum HopByHop {
    static let fields: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer"]

    /// `fields` without hop-by-hop fields, those `Connection` names, and `also`.
    static func removing(from fields: HTTPFields, also extra: Set<String> = []) -> HTTPFields {
        var dropped = Self.fields.union(extra)
        for line in fields[values: .connection] {
            for name in line.split(separator: ",") {
                dropped.insert(name.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        return HTTPFields(fields.filter { !dropped.contains($0.name.canonicalName) })
    }
}
