import ArgumentParser
import Foundation
import Stash
import StashHTTPServer

/// `stash http-proxy`: a caching reverse proxy in front of one origin.
struct HTTPProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-proxy",
        abstract: "Run a caching reverse proxy (RFC 9111) in front of one upstream origin.",
        discussion: """
        Every method and end-to-end field is forwarded; responses are cached as a shared cache
        by default (--private for a private one). Responses carry a Cache-Status field.
        Example: stash http-proxy --listen 127.0.0.1:8080 --upstream http://127.0.0.1:8000
        """
    )

    @Option(name: .long, help: "Address to listen on, HOST:PORT (port 0 picks a free one).")
    var listen = "127.0.0.1:8080"

    @Option(name: .long, help: "The origin, such as http://127.0.0.1:8000.")
    var upstream: String

    @Flag(name: .long, help: "Cache as a shared cache (the default).")
    var shared = false

    @Flag(name: .customLong("private"), help: "Cache as a private cache.")
    var isPrivate = false

    @Option(name: .long, help: "Bytes of responses kept in memory.")
    var memoryCapacity = 32 << 20

    @Option(name: .long, help: "Bytes of responses kept on disk (0: memory only).")
    var diskCapacity = 256 << 20

    @OptionGroup var sandbox: SandboxOptions

    func validate() throws {
        if shared && isPrivate { throw ValidationError("--shared and --private exclude each other") }
        if memoryCapacity < 0 || diskCapacity < 0 { throw ValidationError("capacities must be zero or more bytes") }
    }

    func run() async throws {
        guard let upstreamURL = URL(string: upstream), upstreamURL.scheme == "http" || upstreamURL.scheme == "https",
              upstreamURL.host != nil else {
            throw ValidationError("--upstream must be an http(s) URL, got '\(upstream)'")
        }
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else {
            throw ValidationError("--listen must be HOST:PORT, got '\(listen)'")
        }
        let host = String(listen[..<colon])
        let mode: HTTPCacheMode = isPrivate ? .private : .shared
        let directory = diskCapacity == 0 ? nil
            : try sandbox.sandbox().url(for: .caches).appendingPathComponent("HTTPProxyCache", isDirectory: true)
        let cache = try HTTPCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory, mode: mode)
        let proxy = HTTPCachingProxy(upstream: upstreamURL, cache: cache)
        try await proxy.run(host: host, port: port) { bound in
            var banner = "stash http-proxy: \(mode) cache, listening on http://\(host):\(bound), upstream \(upstreamURL.absoluteString)\n"
            if let directory { banner += "cache folder: \(directory.path)\n" }
            FileHandle.standardOutput.write(Data(banner.utf8))
        }
        try await proxy.shutdown()
    }
}
