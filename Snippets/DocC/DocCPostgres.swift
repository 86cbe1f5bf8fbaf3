import PostgresNIO
import StashPostgres
// snippet.hide
import Foundation
func render() async throws -> Data { Data("<html></html>".utf8) }
// snippet.show

let client = PostgresClient(configuration: try SharedCache.clientConfiguration(url: "postgres://app@db.internal/app"))
var configuration = SharedCache.Configuration()
configuration.sizeLimit = 1 << 30
configuration.timeout = .milliseconds(250)
let cache = SharedCache(client: client, configuration: configuration)

try await withThrowingDiscardingTaskGroup { group in
    group.addTask { await client.run() }
    group.addTask { try await cache.run() }
    try await cache.migrate()
    let page = try await cache.value(forKey: "page/home", expiry: .after(30)) { try await render() }
    // snippet.hide
    _ = page
    // snippet.show
}
