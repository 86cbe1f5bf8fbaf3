extension PreferencesEngine {
    /// Applies one record to `index`: what ``apply(_:key:value:expiry:offset:length:byOtherProcess:)``
    /// does without observers, and what an open does for every record, into an index of its
    /// own (a local, so the hot loop pays no exclusivity check on the engine's properties).
    @inline(__always)
    static func apply(
        _ kind: Record.Kind, key: String, keyHash: UInt64? = nil, value: PreferenceValue?, expiry: Double?, offset: Int, length: Int,
        to index: inout KeyIndex, liveBytes: inout Int
    ) {
        switch kind {
        case .set, .setExpiring:
            guard let value else { return }
            let entry = Entry(value: value, expiry: expiry, offset: offset, length: length)
            if let old = index.updateValue(entry, forKey: key, hash: keyHash ?? KeyHash.hash(key).hash) {
                liveBytes -= old.length
            }
            liveBytes += length
        case .remove:
            guard let old = index.removeValue(forKey: key) else { return }
            liveBytes -= old.length
        case .removeAll:
            index.removeAll(keepingCapacity: true)
            liveBytes = 0
        case .groupEnd:
            break
        }
    }
}
