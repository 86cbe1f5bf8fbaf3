import Foundation
import Logging
import PostgresNIO
import StashCore
import StashPostgres
import Testing

/// The PostgreSQL server of the tests: `STASH_POSTGRES_URL` (see `Scripts/postgres.sh`).
/// Without it the tests that need it are skipped locally, and fail in CI (`CI=true`).
enum TestPostgres {
    static let url = ProcessInfo.processInfo.environment["STASH_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Whether the tests that need PostgreSQL run: a server is configured, or this is CI,
    /// where a missing server must fail them rather than skip them.
    static let enabled = url != nil || isCI
    static let skipReason: Comment = "skipped: STASH_POSTGRES_URL is not set (start a server with `Scripts/postgres.sh start` and export the URL it prints)"

    /// The configured URL, or a failure saying why there is none.
    static func requireURL() throws -> String {
        guard let url else {
            throw StashError(.unavailable, "STASH_POSTGRES_URL is not set; in CI the tests that need PostgreSQL must not be skipped")
        }
        return url
    }

    /// A logger that prints nothing, for expected failures.
    static let quiet = Logger(label: "stash.tests.quiet") { _ in SwiftLogNoOpLogHandler() }

    /// A client of `url` whose tables live in `schema`.
    static func client(url: String, schema: String) throws -> PostgresClient {
        var configuration = try SharedCache.clientConfiguration(url: url)
        configuration.options.additionalStartupParameters = [("search_path", schema)]
        configuration.options.connectTimeout = .seconds(2)
        return PostgresClient(configuration: configuration)
    }

    /// Runs `body` with a running client of a fresh schema of the test server, dropped after.
    static func withSchema<T: Sendable>(
        url: String? = nil, _ body: @Sendable (_ url: String, _ schema: String, _ client: PostgresClient) async throws -> T
    ) async throws -> T {
        let url = try url ?? requireURL()
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try await withClient(url: url, schema: "public") { admin in
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"))
        }
        do {
            let result = try await withClient(url: url, schema: schema) { client in try await body(url, schema, client) }
            _ = try? await withClient(url: url, schema: "public") { admin in
                try await admin.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
            }
            return result
        } catch {
            _ = try? await withClient(url: url, schema: "public") { admin in
                try await admin.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
            }
            throw error
        }
    }

    /// Runs `body` with a running client.
    @discardableResult
    static func withClient<T: Sendable>(url: String, schema: String, _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = try client(url: url, schema: schema)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// Runs `body` with the URL of a database of its own on the test server, dropped after:
    /// for a test that other tests' open transactions must not disturb (PostgreSQL prunes
    /// dead rows only behind the oldest transaction of the same database). Where the user
    /// may not create databases, the test server's own database.
    static func withDatabase<T: Sendable>(_ body: @Sendable (_ url: String) async throws -> T) async throws -> T {
        let url = try requireURL()
        guard var components = URLComponents(string: url) else { return try await body(url) }
        let name = "stash_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        do {
            try await withClient(url: url, schema: "public") { admin in
                try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
            }
        } catch {
            return try await body(url)
        }
        components.path = "/" + name
        func drop() async {
            _ = try? await withClient(url: url, schema: "public") { admin in
                try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"))
            }
        }
        let result: T
        do {
            result = try await body(components.string ?? url)
        } catch {
            await drop()
            throw error
        }
        await drop()
        return result
    }

    /// The tests' cache settings: strict (a failure is an error, not a silent miss) with a
    /// timeout long enough for a machine busy building.
    static var configuration: SharedCache.Configuration {
        var configuration = SharedCache.Configuration()
        configuration.logger = quiet
        configuration.failurePolicy = .strict
        configuration.timeout = .seconds(20)
        return configuration
    }

    /// Runs `body` with a migrated cache of a fresh schema (of the database of `url`, the test
    /// server's by default).
    static func withCache<T: Sendable>(
        url: String? = nil,
        _ configure: @Sendable (inout SharedCache.Configuration) -> Void = { _ in },
        _ body: @Sendable (SharedCache) async throws -> T
    ) async throws -> T {
        try await withSchema(url: url) { _, _, client in
            var configuration = Self.configuration
            configure(&configuration)
            let cache = SharedCache(client: client, configuration: configuration)
            try await cache.migrate()
            return try await body(cache)
        }
    }
}
