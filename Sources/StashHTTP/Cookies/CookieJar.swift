public import Foundation
public import StashCore
import Logging

/// An RFC 6265 cookie jar: stores the cookies servers set and sends them back, saved in the
/// sandbox's application support folder across launches (the playbook's `Library/Cookies`).
///
/// ```swift
/// let jar = try CookieJar(sandbox: .main)
/// let client = CachingHTTPClient(cache: cache, transport: transport, cookieJar: jar)
/// _ = try await client.send(HTTPRequest(url: URL(string: "https://example.com/login")!))
/// for cookie in jar.cookies() { print(cookie) }   // what example.com set
/// ```
///
/// **What it does.** Domain and path matching, host-only cookies, `Secure` (sent only over
/// `https` or to loopback), `HttpOnly` and `SameSite` kept, `Max-Age` winning over
/// `Expires`, the most specific path first in `Cookie`. Cookies for a public suffix
/// (`com`, `co.uk`, `github.io`) are refused, using the system's Public Suffix List when
/// present (``PublicSuffixList/system``). Domains compare in their ASCII form, so
/// `bücher.example` and `xn--bcher-kva.example` are one domain. Servers' malformed cookies
/// are ignored as RFC 6265 says; the jar's own API throws ``StashCore/StashError`` with
/// ``StashCore/StashError/Code/invalidCookie`` or ``StashCore/StashError/Code/invalidHost``.
///
/// **What survives.** Every change is saved before the call returns, with an atomic write
/// (`FileStore.write`): a crash or power cut leaves the previous jar or the new one, never
/// a mix. Session cookies live only as long as the open jar unless
/// ``Configuration/keepsSessionCookies`` is set. Last-use times (which decide eviction)
/// are saved with the next change or at ``close()``.
///
/// **Who may use it.** Thread-safe. One process writes a jar folder at a time: a second
/// writer (in this process or another) gets ``/StashCore/StashError/Code/locked``; others may
/// open it with ``Access/readOnly``.
public final class CookieJar: Sendable {
    /// The folder holding the jar's files; `nil` for a jar kept in memory only.
    public let directory: URL?
    /// How the jar behaves.
    public let configuration: Configuration

    struct State {
        var cookies: [Cookie.Identity: Cookie] = [:]
        /// Last-use times or an unsaved change wait for the next save.
        var isDirty = false
        var isClosed = false
    }

    let state: LockedValue<State>
    private let writerLock: LockedValue<FileLock?>

    /// The jar file inside ``directory``.
    var fileURL: URL? { directory?.appendingPathComponent(Self.fileName) }
    static let fileName = "cookies.jar"

    /// Opens the jar of `sandbox`: `Application Support/Cookies`.
    ///
    /// ```swift
    /// let jar = try CookieJar(sandbox: try Sandbox(app: "com.example.reader"))
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/locked`` when another process writes this jar,
    ///   ``/StashCore/StashError/Code/corruptFile`` when the saved jar cannot be read (the
    ///   file is left untouched), or a file system error.
    public convenience init(sandbox: Sandbox, configuration: Configuration = Configuration()) throws {
        try self.init(directory: sandbox.applicationSupport.appendingPathComponent("Cookies", isDirectory: true), configuration: configuration)
    }

    /// Opens (creating it if needed) the jar saved in `directory`.
    ///
    /// ```swift
    /// let jar = try CookieJar(directory: URL(fileURLWithPath: "/var/lib/app/cookies"))
    /// ```
    ///
    /// - throws: As ``init(sandbox:configuration:)``; ``/StashCore/StashError/Code/notFound``
    ///   for a read-only jar whose folder does not exist.
    public init(directory: URL, configuration: Configuration = Configuration()) throws {
        let directory = directory.standardizedFileURL
        self.directory = directory
        self.configuration = configuration
        switch configuration.access {
        case .readWrite:
            try FileStore.createFolder(directory)
            let lock = try FileLock(url: directory.appendingPathComponent("writer.lock"), scope: .processesOnly)
            guard try lock.tryLock(.exclusive) else {
                throw StashError(.locked, "another CookieJar, in this process or another, writes this jar; open it with access .readOnly to read it", path: directory.path)
            }
            writerLock = LockedValue(lock)
        case .readOnly:
            guard FileStore.isFolder(directory) else { throw StashError(.notFound, "no cookie jar here", path: directory.path) }
            writerLock = LockedValue(nil)
        }
        let file = directory.appendingPathComponent(Self.fileName)
        var loaded: [Cookie.Identity: Cookie] = [:]
        var dropped = 0
        if FileStore.exists(file) {
            let now = configuration.clock.now
            for cookie in try Self.decode(FileStore.read(file), path: file.path) {
                if cookie.isExpired(at: now) || (cookie.isSession && !configuration.keepsSessionCookies) {
                    dropped += 1
                } else {
                    loaded[cookie.identity] = cookie
                }
            }
        }
        state = LockedValue(State(cookies: loaded))
        // The last session's cookies leave the disk at this launch, not at some later change.
        if dropped > 0, configuration.access == .readWrite { try save(loaded) }
    }

    /// Creates a jar kept in memory only, lost when released.
    ///
    /// ```swift
    /// let jar = CookieJar(inMemory: CookieJar.Configuration())
    /// ```
    public init(inMemory configuration: Configuration = Configuration()) {
        directory = nil
        self.configuration = configuration
        writerLock = LockedValue(nil)
        state = LockedValue(State())
    }

    deinit { close() }

    /// Saves what is pending (last-use times) and releases the writer lock. Later changes
    /// throw ``/StashCore/StashError/Code/closed``. Calling it twice does nothing.
    ///
    /// ```swift
    /// jar.close()
    /// ```
    public func close() {
        state.withLock { state in
            guard !state.isClosed else { return }
            if state.isDirty, configuration.access == .readWrite {
                do { try save(state.cookies) } catch { configuration.logger.error("CookieJar: saving at close failed: \(error)") }
            }
            state.isClosed = true
        }
        writerLock.withLock { lock in
            lock?.unlock()
            lock = nil
        }
    }

    /// Every cookie in the jar that has not expired, by domain, path and name.
    ///
    /// ```swift
    /// for cookie in jar.cookies() where cookie.domain.hasSuffix("example.com") { print(cookie.name) }
    /// ```
    public func cookies() -> [Cookie] {
        let now = configuration.clock.now
        return state.withLock { $0.cookies.values.filter { !$0.isExpired(at: now) } }
            .sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
    }

    /// How many cookies the jar holds (expired ones not yet removed included).
    ///
    /// ```swift
    /// print("\(jar.count) cookies")
    /// ```
    public var count: Int { state.withLock { $0.cookies.count } }

    /// Runs a change on the cookies and saves it before returning.
    ///
    /// `required` changes (the jar's own API) are saved first and kept only when the save
    /// succeeds; best-effort changes (cookies from responses) are kept in memory when the save
    /// fails, reported to the log and saved with the next change.
    func change<T>(required: Bool, _ body: (inout [Cookie.Identity: Cookie]) throws -> T) throws -> T {
        guard configuration.access == .readWrite else {
            throw StashError(.readOnly, "this CookieJar was opened read-only", path: directory?.path)
        }
        return try state.withLock { state in
            guard !state.isClosed else { throw StashError(.closed, "the cookie jar is closed", path: directory?.path) }
            var cookies = state.cookies
            let before = persistentView(cookies)
            let result = try body(&cookies)
            let needsSave = state.isDirty || persistentView(cookies) != before
            if needsSave {
                do {
                    try save(cookies)
                    state.isDirty = false
                } catch {
                    guard !required else { throw error }
                    configuration.logger.error("CookieJar: saving failed, will retry with the next change: \(error)")
                    state.isDirty = true
                }
            }
            state.cookies = cookies
            return result
        }
    }

    /// What a save writes, without last-use times: a change only to those waits.
    private func persistentView(_ cookies: [Cookie.Identity: Cookie]) -> [Cookie.Identity: Cookie] {
        var view: [Cookie.Identity: Cookie] = [:]
        for (identity, var cookie) in cookies where !cookie.isSession || configuration.keepsSessionCookies {
            cookie.lastAccessed = cookie.created
            view[identity] = cookie
        }
        return view
    }

    /// Writes the jar file (nothing for an in-memory jar).
    private func save(_ cookies: [Cookie.Identity: Cookie]) throws {
        guard let fileURL else { return }
        let saved = cookies.values.filter { !$0.isSession || configuration.keepsSessionCookies }
        try FileStore.write(Self.encode(saved), to: fileURL, durability: configuration.durability)
    }
}
