public import Foundation
import StashCore

/// The Netscape `cookies.txt` format that curl (`-b` / `-c`), wget and browser extensions
/// read and write: one cookie a line, seven tab-separated fields (domain, subdomains
/// `TRUE`/`FALSE`, path, secure `TRUE`/`FALSE`, expiry in Unix seconds with `0` for a
/// session cookie, name, value); `#HttpOnly_` before the domain marks an HttpOnly cookie.
extension CookieJar {
    /// Imports the cookies of a `cookies.txt` text, replacing those with the same name,
    /// domain and path. All or nothing: one malformed line imports nothing.
    ///
    /// ```swift
    /// let text = try String(contentsOfFile: "cookies.txt", encoding: .utf8)  // from `curl -c`
    /// let imported = try jar.importCookiesTxt(text)
    /// ```
    ///
    /// Expired cookies are skipped. Imported session cookies follow
    /// ``Configuration/keepsSessionCookies``.
    ///
    /// - returns: How many cookies were imported.
    /// - throws: ``StashCore/StashError/Code/invalidCookie`` naming the first bad line
    ///   (wrong field count, a flag other than `TRUE`/`FALSE`, a bad expiry, a public-suffix
    ///   domain) or ``StashCore/StashError/Code/invalidHost``; nothing was imported.
    @discardableResult
    public func importCookiesTxt(_ text: String) throws -> Int {
        let now = configuration.clock.now
        var imported: [Cookie] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            var line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            var isHTTPOnly = false
            if line.hasPrefix("#HttpOnly_") {
                isHTTPOnly = true
                line = line.dropFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                continue
            }
            do {
                guard let cookie = try Self.cookie(fromLine: line, isHTTPOnly: isHTTPOnly, now: now) else { continue }
                imported.append(try validated(cookie))
            } catch let error as StashError {
                throw StashError(error.code, "cookies.txt line \(index + 1): \(error.reason)", key: error.key)
            }
        }
        let accepted = imported.filter { !$0.isExpired(at: now) }
        try change(required: true) { cookies in
            for cookie in accepted {
                var cookie = cookie
                if let old = cookies[cookie.identity] { cookie.created = old.created }
                cookies[cookie.identity] = cookie
            }
        }
        return accepted.count
    }

    /// Imports the `cookies.txt` file at `url` (see ``importCookiesTxt(_:)``).
    ///
    /// ```swift
    /// try jar.importCookiesTxt(contentsOf: URL(fileURLWithPath: "cookies.txt"))
    /// ```
    ///
    /// - throws: As ``importCookiesTxt(_:)``; ``/StashCore/StashError/Code/corruptFile`` when
    ///   the file is not UTF-8; a file system error when it cannot be read.
    @discardableResult
    public func importCookiesTxt(contentsOf url: URL) throws -> Int {
        guard let text = String(data: try FileStore.read(url), encoding: .utf8) else {
            throw StashError(.corruptFile, "a cookies.txt file is UTF-8 text", path: url.path)
        }
        do { return try importCookiesTxt(text) } catch var error as StashError {
            error.path = url.path
            throw error
        }
    }

    /// The jar's cookies as a `cookies.txt` text, which `curl -b FILE` reads.
    ///
    /// ```swift
    /// try jar.exportCookiesTxt().write(toFile: "cookies.txt", atomically: true, encoding: .utf8)
    /// ```
    ///
    /// Session cookies have expiry `0`. A cookie whose name or value holds a tab cannot be
    /// written in this format and is left out.
    public func exportCookiesTxt() -> String {
        var text = "# Netscape HTTP Cookie File\n# Written by Stash's CookieJar.\n\n"
        for cookie in cookies() where !cookie.name.contains("\t") && !cookie.value.contains("\t") {
            let domain = (cookie.isHTTPOnly ? "#HttpOnly_" : "") + (cookie.isHostOnly ? "" : ".") + cookie.domain
            let expires = cookie.expires.map { String(max(1, Int64($0.timeIntervalSince1970.rounded(.up)))) } ?? "0"
            let fields = [domain, cookie.isHostOnly ? "FALSE" : "TRUE", cookie.path, cookie.isSecure ? "TRUE" : "FALSE", expires, cookie.name, cookie.value]
            text += fields.joined(separator: "\t") + "\n"
        }
        return text
    }

    /// Writes ``exportCookiesTxt()`` to `url` atomically (owner-only permissions).
    ///
    /// ```swift
    /// try jar.exportCookiesTxt(to: URL(fileURLWithPath: "cookies.txt"))   // then: curl -b cookies.txt …
    /// ```
    ///
    /// - throws: A file system error; the previous file, if any, is left whole.
    public func exportCookiesTxt(to url: URL) throws {
        try FileStore.write(Data(exportCookiesTxt().utf8), to: url, durability: configuration.durability)
    }

    /// One data line; `nil` for nothing to import.
    private static func cookie(fromLine line: Substring, isHTTPOnly: Bool, now: Date) throws -> Cookie? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count >= 6 else {
            throw StashError(.invalidCookie, "expected 7 tab-separated fields, found \(fields.count)")
        }
        func flag(_ field: Substring, _ what: String) throws -> Bool {
            switch field.uppercased() {
            case "TRUE": return true
            case "FALSE": return false
            default: throw StashError(.invalidCookie, "\(what) is '\(StoredKey.printable(String(field.prefix(40))))', not TRUE or FALSE")
            }
        }
        let includesSubdomains = try flag(fields[1], "the subdomains flag")
        let isSecure = try flag(fields[3], "the secure flag")
        guard let seconds = Int64(fields[4]), seconds >= 0 else {
            throw StashError(.invalidCookie, "the expiry '\(StoredKey.printable(String(fields[4].prefix(40))))' is not Unix seconds")
        }
        let value = fields.count > 6 ? fields[6...].joined(separator: "\t") : ""
        let domain = fields[0].hasPrefix(".") ? fields[0].dropFirst() : fields[0]
        return Cookie(
            name: String(fields[5]), value: value, domain: String(domain), path: String(fields[2]),
            expires: seconds == 0 ? nil : Date(timeIntervalSince1970: Double(seconds)),
            isHostOnly: !includesSubdomains, isSecure: isSecure, isHTTPOnly: isHTTPOnly,
            created: now, lastAccessed: now
        )
    }
}
