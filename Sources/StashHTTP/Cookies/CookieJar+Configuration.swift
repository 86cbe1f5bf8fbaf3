import Foundation
public import StashCore

extension CookieJar {
    /// Whether this process stores cookies or only reads what the writer saved.
    public enum Access: Sendable {
        /// The one writer: holds the jar's lock file for as long as it is open.
        case readWrite
        /// A read-only view of the saved cookies (for tools such as `stash cookies list`
        /// while the app runs). Changes throw ``/StashCore/StashError/Code/readOnly``.
        case readOnly
    }

    /// How many cookies a jar keeps. When a new cookie goes past a limit, expired cookies
    /// go first, then the least recently used ones.
    ///
    /// ```swift
    /// let limits = CookieJar.Limits(perDomain: 50, total: 1000)
    /// ```
    public struct Limits: Sendable, Hashable {
        /// Cookies per registrable domain (`example.co.uk` and all its subdomains together).
        public var perDomain: Int
        /// Cookies in the whole jar.
        public var total: Int

        /// RFC 6265 asks for at least 50 per domain and 3000 in total; the defaults are the
        /// ones browsers use (180 and 3000).
        public init(perDomain: Int = 180, total: Int = 3000) {
            self.perDomain = max(1, perDomain)
            self.total = max(1, total)
        }
    }

    /// How a ``CookieJar`` behaves.
    ///
    /// ```swift
    /// var configuration = CookieJar.Configuration()
    /// configuration.keepsSessionCookies = true   // a "restore session" app
    /// configuration.limits = CookieJar.Limits(perDomain: 50, total: 500)
    /// let jar = try CookieJar(sandbox: .main, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The bounds of the jar.
        public var limits = Limits()
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
        /// Where cookies ignored from responses and failed background saves are reported.
        /// Default: nowhere (a server's malformed cookie is routine).
        public var log: @Sendable (String) -> Void = { _ in }

        /// The default configuration.
        public init() {}
    }
}
