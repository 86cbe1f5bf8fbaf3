public import Foundation
import StashCore

/// The Public Suffix List: the domains under which anyone may register a name (`com`,
/// `co.uk`, `github.io`), for which a ``CookieJar`` refuses cookies.
///
/// ``system`` reads the list the operating system ships (Debian's `publicsuffix` package
/// installs `/usr/share/publicsuffix/public_suffix_list.dat`) and falls back to a built-in
/// list of the common suffixes when that file is absent.
///
/// ```swift
/// let suffixes = PublicSuffixList.system
/// suffixes.isPublicSuffix("co.uk")                       // true
/// suffixes.registrableDomain(of: "www.example.co.uk")    // "example.co.uk"
/// let custom = try PublicSuffixList(rules: "com\n*.ck\n!www.ck\n")
/// ```
///
/// Rules follow the list's format: one rule a line, `//` comments, `*.` wildcards, `!`
/// exceptions; a name no rule matches has its last label as public suffix (the `*` rule).
public struct PublicSuffixList: Sendable {
    /// Where Debian and Ubuntu install the list.
    public static let debianFile = URL(fileURLWithPath: "/usr/share/publicsuffix/public_suffix_list.dat")

    /// Where the rules came from: the file's path, or `"built-in"`.
    public let source: String
    /// How many rules the list holds.
    public var count: Int { exact.count + wildcards.count + exceptions.count }

    private var exact: Set<String> = []
    private var wildcards: Set<String> = []
    private var exceptions: Set<String> = []

    /// The system's list when present (``debianFile``), the built-in list otherwise.
    public static let system: PublicSuffixList = {
        if let list = try? PublicSuffixList(contentsOf: debianFile) { return list }
        return builtIn
    }()

    /// The built-in list: the most used multi-label suffixes (every single label, `com` or
    /// `fr`, is a public suffix anyway by the `*` rule).
    public static let builtIn: PublicSuffixList = {
        // The rules are constant and valid; parsing them cannot fail.
        (try? PublicSuffixList(rules: BuiltInPublicSuffixes.rules, source: "built-in")) ?? PublicSuffixList(source: "built-in")
    }()

    private init(source: String) { self.source = source }

    /// Reads a list in the Public Suffix List format.
    ///
    /// ```swift
    /// let list = try PublicSuffixList(contentsOf: URL(fileURLWithPath: "public_suffix_list.dat"))
    /// ```
    ///
    /// - throws: `StashError` when the file cannot be read; `.corruptFile` when it is not
    ///   UTF-8 or holds no rule.
    public init(contentsOf url: URL) throws {
        let data = try FileStore.read(url)
        guard let text = String(data: data, encoding: .utf8) else {
            throw StashError(.corruptFile, "the public suffix list is not UTF-8", path: url.path)
        }
        try self.init(rules: text, source: url.path)
        guard count > 0 else { throw StashError(.corruptFile, "no rule in the public suffix list", path: url.path) }
    }

    /// Parses rules given as text, in the Public Suffix List format.
    ///
    /// ```swift
    /// let list = try PublicSuffixList(rules: "com\nco.uk\n")
    /// ```
    ///
    /// - throws: `StashError(.invalidHost)` when a rule is not a valid domain name.
    public init(rules: String, source: String = "rules") throws {
        self.source = source
        for line in rules.split(whereSeparator: \.isNewline) {
            guard let token = line.split(whereSeparator: \.isWhitespace).first, !token.hasPrefix("//") else { continue }
            if token.hasPrefix("!") {
                exceptions.insert(try CookieDomain.canonical(String(token.dropFirst())))
            } else if token.hasPrefix("*.") {
                wildcards.insert(try CookieDomain.canonical(String(token.dropFirst(2))))
            } else if token != "*" {
                exact.insert(try CookieDomain.canonical(String(token)))
            }
        }
    }

    /// The public suffix of a canonical (ASCII, lowercase) domain.
    func publicSuffix(ofCanonical domain: String) -> String {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        for start in labels.indices {
            let candidate = labels[start...].joined(separator: ".")
            if exceptions.contains(candidate) { return labels[(start + 1)...].joined(separator: ".") }
            if exact.contains(candidate) { return candidate }
            if start + 1 < labels.count, wildcards.contains(labels[(start + 1)...].joined(separator: ".")) { return candidate }
        }
        return labels.last.map(String.init) ?? domain
    }

    /// Whether `domain` is a public suffix (`com`, `co.uk`, `github.io`).
    ///
    /// ```swift
    /// PublicSuffixList.system.isPublicSuffix("github.io") // true
    /// ```
    ///
    /// Names that are not valid host names count as public suffixes: nothing may be set
    /// for them.
    public func isPublicSuffix(_ domain: String) -> Bool {
        guard let canonical = try? CookieDomain.canonical(domain) else { return true }
        return publicSuffix(ofCanonical: canonical) == canonical
    }

    /// The registrable domain of `host`: its public suffix and one more label
    /// (`www.example.co.uk` → `example.co.uk`), or `nil` for a public suffix or an IP address.
    ///
    /// ```swift
    /// PublicSuffixList.system.registrableDomain(of: "a.b.example.com") // "example.com"
    /// ```
    public func registrableDomain(of host: String) -> String? {
        guard let canonical = try? CookieDomain.canonical(host), !CookieDomain.isIPAddress(canonical) else { return nil }
        return registrableDomain(ofCanonical: canonical)
    }

    func registrableDomain(ofCanonical domain: String) -> String? {
        let suffix = publicSuffix(ofCanonical: domain)
        guard suffix != domain else { return nil }
        let head = domain.dropLast(suffix.utf8.count + 1)
        let label = head.split(separator: ".").last.map(String.init) ?? String(head)
        return label + "." + suffix
    }
}
