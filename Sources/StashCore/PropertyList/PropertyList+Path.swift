/// Where a value sits inside a property list, for error messages: `root["settings"][2]`.
///
/// Codecs keep a stack of components while they walk a value and only format it when they
/// throw, so naming the place of a problem costs nothing on the happy path.
struct PropertyListPath: Sendable, CustomStringConvertible {
    enum Component: Sendable {
        case key(String)
        case index(Int)
    }

    var components: [Component] = []

    mutating func push(_ key: String) { components.append(.key(key)) }
    mutating func push(_ index: Int) { components.append(.index(index)) }
    mutating func pop() { components.removeLast() }

    var description: String {
        var text = "root"
        for component in components {
            switch component {
            case .key(let key): text += "[\"\(key)\"]"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// An ``StashError/Code/unsupportedValue`` error naming this place in its `key`.
    func unsupported(_ reason: String) -> StashError {
        StashError(.unsupportedValue, reason, key: description)
    }

    /// A ``StashError/Code/corruptFile`` error naming this place in its `key`.
    func corrupt(_ reason: String) -> StashError {
        StashError(.corruptFile, reason, key: description)
    }

    /// Adds `value` under `key` (the key at this place) to a dictionary being read from a
    /// file, which must not hold it already: a key written twice is damage (which value was
    /// meant cannot be known; in a binary plist one flipped reference makes one), and two
    /// keys Swift finds equal but spelled differently (`"é"` precomposed and decomposed,
    /// which Apple's readers keep apart) are a dictionary the enum cannot hold.
    ///
    /// - throws: ``StashError/Code/corruptFile`` for a key written twice,
    ///   ``StashError/Code/unsupportedValue`` for two spellings of one key.
    func add(_ value: PropertyList, forKey key: String, to entries: inout [String: PropertyList]) throws {
        guard let index = entries.index(forKey: key) else {
            entries[key] = value
            return
        }
        if entries.keys[index].unicodeScalars.elementsEqual(key.unicodeScalars) {
            throw corrupt("the key appears twice in one dictionary")
        }
        throw unsupported("two keys of one dictionary are the same string spelled differently (canonically equivalent)")
    }
}
