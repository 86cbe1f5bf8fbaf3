import Foundation
public import StashCore
public import Logging
import StashCache

extension CookieJar {
    /// Whether this process stores cookies or only reads what the writer saved.
    public enum Access: Sendable {
        /// The one writer: holds the jar's lock file for as long as it is open.
        case readWrite
        /// A read-only view of the saved cookies (for tools such as `stash cookies list`
        /// while the app runs). Changes throw ``/StashCore/StashError/Code/readOnly``.
        case readOnly
    }

    /// How a ``CookieJar`` behaves.
    ///
    /// ```swift
    /// var configuration = CookieJar.Configuration()
    /// configuration.keepsSessionCookies = true   // a "restore session" app
    /// configuration.countLimit = 500
    /// configuration.countLimitPerDomain = 50
    /// let jar = try CookieJar(sandbox: .main, configuration: configuration)
    /// ```
    ///
    /// When a new cookie goes past a limit, expired cookies go first, then the least recently
    /// used ones. RFC 6265 asks for at least 50 per domain and 3000 in total; the defaults
    /// are the ones browsers use (180 and 3000). A limit below 1 counts as 1.
    public struct Configuration: Sendable {
        /// The most cookies in the whole jar. Default: 3000.
        public var countLimit = 3000
        /// The most cookies per registrable domain (`example.co.uk` and all its subdomains
        /// together). Default: 180.
        public var countLimitPerDomain = 180
        /// Whether session cookies (no `Expires` nor `Max-Age`) are saved and survive into
        /// the next launch. By default they live only as long as the open jar, as in a
        /// browser.
        public var keepsSessionCookies = false
        /// Whether this process writes the jar or only reads it.
        public var access: Access = .readWrite
        /// The public suffixes for which cookies are refused.
        public var publicSuffixes: PublicSuffixList = .system
        /// What a save must survive before a change returns.
        public var durability: FileStore.Durability = .powerSafe
        /// The clock that decides expiry.
        public var clock: any StashClock = SystemClock()
        /// Where cookies ignored from responses (`debug`: a server's malformed cookie is
        /// routine) and failed background saves (`error`) are reported. Default: a logger
        /// that discards everything, as swift-log advises for libraries.
        public var logger: Logger = .stashSilent

        /// The default configuration.
        public init() {}
    }
}
