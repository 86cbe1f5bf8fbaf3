import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import Stash
import StashHTTPServer
import StashPostgres
import StashPostgresHTTP

/// `stash http-proxy --shared-cache postgres://…`: the proxy's responses in a PostgreSQL
/// `SharedCache`, so that every proxy given the same URL serves what any of them stored.
extension HTTPProxyCommand {
    func runOnSharedCache(
        _ url: String, host: String, port: Int, upstream: URL, mode: HTTPCacheMode, configuration: HTTPCachingProxy.Configuration,
        admin: Admin?
    ) async throws {
        let clientConfiguration: PostgresClient.Configuration
        do {
            clientConfiguration = try SharedCache.clientConfiguration(url: url)
        } catch let error as StashError {
            throw ValidationError("--shared-cache: \(error.reason)")
        }
        var clientSettings = clientConfiguration
        clientSettings.options.connectTimeout = .milliseconds(Int64(sharedCacheTimeout * 1000))
        let logger = {
            var logger = Logger(label: "stash.http-proxy.shared-cache")
            logger.logLevel = .warning
            return logger
        }()
        let client = PostgresClient(configuration: clientSettings)
        var cacheConfiguration = SharedCache.Configuration()
        cacheConfiguration.timeout = .milliseconds(Int64(sharedCacheTimeout * 1000))
        cacheConfiguration.sizeLimit = sharedCacheCapacity
        cacheConfiguration.logger = logger
        cacheConfiguration.metricsName = "stash_http_proxy"
        let shared = SharedCache(client: client, configuration: cacheConfiguration)
        let proxy = HTTPCachingProxy(upstream: upstream, cache: HTTPCache(sharedStorage: shared, mode: mode), configuration: configuration)
        let location = "\(clientSettings.host ?? "?"):\(clientSettings.port ?? 5432)/\(clientSettings.database ?? "")"
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { try await shared.run() }
            // The table is ready before the first request when PostgreSQL answers; when it
            // does not, the proxy serves from the upstream while the migration retries.
            if await !Self.migrate(shared, logger: logger, retrying: false) {
                group.addTask { _ = await Self.migrate(shared, logger: logger, retrying: true) }
            }
            try await serve(proxy, host: host, port: port, admin: admin) { bound in
                "stash http-proxy: \(mode) cache, listening on http://\(host):\(bound), upstream \(upstream.absoluteString)\n"
                    + "shared cache: PostgreSQL \(location), table stash_cache\n"
            }
            group.cancelAll()
        }
        try await proxy.shutdown()
    }

    /// Creates the table (once, or every 5 seconds until PostgreSQL answers) and says whether
    /// it is ready. Meanwhile every lookup misses and the proxy serves from the upstream.
    private static func migrate(_ shared: SharedCache, logger: Logger, retrying: Bool) async -> Bool {
        while !Task.isCancelled {
            do {
                try await shared.migrate()
                if retrying { logger.warning("shared cache: PostgreSQL answers again, the table is ready") }
                return true
            } catch StashError.Code.unsupportedVersion {
                logger.error("shared cache: the stash_cache table was made by a newer Stash; every lookup will miss")
                return true
            } catch {
                guard retrying else {
                    logger.warning("shared cache: cannot prepare the table yet, forwarding every request meanwhile: \(error)")
                    return false
                }
                do { try await Task.sleep(for: .seconds(5)) } catch { return false }
            }
        }
        return false
    }
}
