public import Foundation
import StashCore

// The names of 0.1.0's API review (docs/API.md) that README examples used before it. They
// forward to the new names and go away in a later release; nothing in Stash calls them.

extension Preferences {
    /// Renamed ``set(_:forKey:expiry:)-(Value,_,_)``: expiry is an `ExpiryPolicy` in every store.
    @available(*, deprecated, renamed: "set(_:forKey:expiry:)", message: "use expiry: .after(seconds)")
    public func set<Value: PreferenceStorable>(_ value: Value, forKey key: String, expiresAfter seconds: TimeInterval) throws {
        try set(value, forKey: key, expiry: .after(seconds))
    }
}
