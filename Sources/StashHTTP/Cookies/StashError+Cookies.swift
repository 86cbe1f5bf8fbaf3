public import StashCore

extension StashError.Code {
    /// A cookie, a `Set-Cookie` line or a `cookies.txt` line cannot be used: a control
    /// character, an over-long name or value, a domain the request may not set, a public
    /// suffix. Nothing was stored.
    public static let invalidCookie = Self(rawValue: "invalid cookie")
    /// A URL or host cannot carry cookies (no host, a malformed or over-long domain name).
    public static let invalidHost = Self(rawValue: "invalid host")
}
