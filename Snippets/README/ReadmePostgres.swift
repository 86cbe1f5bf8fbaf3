import Foundation
import PostgresNIO
import StashPostgres
// snippet.hide
let html = "<html></html>"
func build() async throws -> Data { Data("report".utf8) }
// snippet.show

let client = PostgresClient(configuration: try SharedCache.clientConfiguration(url: "postgres://app@db.internal/app"))
let cache = SharedCache(client: client)          // limits, timeout and policy in SharedCache.Configuration
try await withThrowingDiscardingTaskGroup { group in
    group.addTask { await client.run() }         // the connection pool
    group.addTask { try await cache.run() }      // background expiry (a swift-service-lifecycle Service)
    try await cache.migrate()                    // creates the table once; safe from every instance
    try await cache.set(Data(html.utf8), forKey: "page/home", expiry: .after(30))
    let page = try await cache.value(forKey: "page/home")                        // Data?
    let many = try await cache.values(forKeys: ["a", "b", "c"])                  // one round trip
    let hits = try await cache.increment("rate/203.0.113.9")                     // atomic across the fleet
    let report = try await cache.value(forKey: "report", expiry: .after(300)) { try await build() } // computed once per process
    // snippet.hide
    _ = (page, many, hits, report)
    // snippet.show
}
