/// Foundation's own types as peers, named so that a reader knows which Foundation ran: on
/// Linux they are swift-corelibs-foundation's (`-corelibs`), whose speed says nothing of
/// Apple's.
enum FoundationPeer {
    #if canImport(Darwin)
    static let suffix = ""
    #else
    static let suffix = "-corelibs"
    #endif

    static let nsCache = "NSCache" + suffix
    static let userDefaults = "UserDefaults" + suffix
    static let urlCache = "URLCache" + suffix
    /// URLCache in the `lookup-vary` case, where it ignores `Vary` and so answers with
    /// whichever variant was stored last: a speed, not a like-for-like lookup.
    static let urlCacheIgnoringVary = urlCache + "-ignores-vary"
}
