import ArgumentParser
import Foundation
import HTTPTypes
import Stash
import StashHTTPAsyncClient
import NIOCore

/// `stash http`: HTTP requests through Stash's RFC 9111 cache.
struct HTTPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract: "HTTP requests through Stash's RFC 9111 cache.",
        subcommands: [HTTPGetCommand.self]
    )
}

/// `stash http get URL [--policy …] [--root DIR]`.
struct HTTPGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "GET a URL through the sandbox's HTTP cache; print the status, where it came from, and the fields."
    )

    @Argument(help: "An http:// or https:// URL.")
    var url: String

    @Option(name: .long, help: "useProtocolCachePolicy (default), reloadIgnoringLocalCacheData, reloadRevalidatingCacheData, returnCacheDataElseLoad or returnCacheDataDontLoad.")
    var policy: String = RequestCachePolicy.useProtocolCachePolicy.rawValue

    @Option(name: .long, help: "Extra request field, as 'Name: value' (repeatable).")
    var header: [String] = []

    @Flag(name: .long, help: "Also print the body.")
    var body = false

    @OptionGroup var sandbox: SandboxOptions

    func run() async throws {
        guard let policy = RequestCachePolicy(rawValue: policy) else {
            throw ValidationError("unknown policy '\(self.policy)'; use one of \(RequestCachePolicy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let target = URL(string: url), let scheme = target.scheme, ["http", "https"].contains(scheme), let host = target.host else {
            throw ValidationError("not an http(s) URL: \(url)")
        }
        var path = target.path.isEmpty ? "/" : target.path
        if let query = target.query { path += "?" + query }
        var request = HTTPRequest(method: .get, scheme: scheme, authority: target.port.map { "\(host):\($0)" } ?? host, path: path)
        for line in header {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let name = HTTPField.Name(String(parts[0]).trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("bad header '\(line)'; use 'Name: value'")
            }
            request.headerFields.append(HTTPField(name: name, value: String(parts[1]).trimmingCharacters(in: .whitespaces)))
        }
        let cache = try HTTPCache(sandbox: sandbox.sandbox())
        let transport = AsyncHTTPClientTransport(timeout: .seconds(30))
        do {
            let answer = try await CachingHTTPClient(cache: cache, transport: transport).send(request, policy: policy)
            print("status: \(answer.response.status.code) \(answer.response.status.reasonPhrase)")
            print("outcome: \(answer.outcome.rawValue)")
            for field in answer.response.headerFields { print("\(field.name.rawName): \(field.value)") }
            print("body: \(answer.body.count) bytes")
            if body { print(String(decoding: answer.body, as: UTF8.self)) }
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }
}
