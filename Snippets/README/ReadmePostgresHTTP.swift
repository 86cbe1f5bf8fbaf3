import Foundation
import PostgresNIO
import StashHTTP
import StashHTTPServer
import StashPostgres
import StashPostgresHTTP

let client = PostgresClient(configuration: try SharedCache.clientConfiguration(url: "postgres://proxy@db.internal/proxy"))
let shared = SharedCache(client: client)
let cache = HTTPCache(sharedStorage: shared)    // mode .shared; nothing kept in this process
let proxy = HTTPCachingProxy(upstream: URL(string: "http://127.0.0.1:8000")!, cache: cache)
try await withThrowingDiscardingTaskGroup { group in
    group.addTask { await client.run() }
    group.addTask { try await shared.run() }
    try await shared.migrate()
    try await proxy.run(port: 8080)
}
