import Foundation
public import PostgresNIO
import StashCore

extension SharedCache {
    /// A `PostgresClient` configuration from a URL such as
    /// `postgres://user:password@host:5432/database?sslmode=require`.
    ///
    /// ```swift
    /// let client = PostgresClient(configuration: try SharedCache.clientConfiguration(url: "postgres://app@127.0.0.1/app"))
    /// ```
    ///
    /// `sslmode` is `disable`, `prefer` (the default) or `require`; the port defaults to
    /// 5432, the user to `postgres`, the database to the user's name. `options` and
    /// `application_name` are sent to the server as libpq sends them, so that
    /// `?options=-c%20search_path%3Dproxy` puts the `stash_cache` table in schema `proxy`.
    ///
    /// - throws: `StashError(.invalidName)` when the URL is not a `postgres://` or
    ///   `postgresql://` URL with a host, or names an unknown `sslmode`.
    public static func clientConfiguration(url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "postgres" || scheme == "postgresql", let host = components.host, !host.isEmpty
        else {
            throw StashError(.invalidName, "not a PostgreSQL URL (postgres://user@host:port/database): \(url)")
        }
        let tls: PostgresClient.Configuration.TLS
        switch components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer" {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        case let other: throw StashError(.invalidName, "unknown sslmode '\(other)' (disable, prefer or require)")
        }
        let user = components.user?.removingPercentEncoding ?? "postgres"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user,
            password: components.password?.removingPercentEncoding,
            database: path.isEmpty ? user : path.removingPercentEncoding, tls: tls
        )
        for item in components.queryItems ?? [] where item.name == "options" || item.name == "application_name" {
            if let value = item.value, !value.isEmpty { configuration.options.additionalStartupParameters.append((item.name, value)) }
        }
        return configuration
    }
}
