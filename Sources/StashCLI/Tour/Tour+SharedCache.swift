import Foundation
import Logging
import PostgresNIO
import Stash
import StashPostgres
import StashPostgresHummingbird

extension Tour {
    /// Two instances of an app on one PostgreSQL table: what one stores, the other reads.
    /// Skipped with one line when `STASH_POSTGRES_URL` is not set.
    @Sendable static func sharedCache(_ tour: Tour) async throws {
        guard let url = ProcessInfo.processInfo.environment["STASH_POSTGRES_URL"], !url.isEmpty else {
            tour.say("skipped: no PostgreSQL configured (`Scripts/postgres.sh start` prints a URL; export it as STASH_POSTGRES_URL)")
            return
        }
        var configuration = try SharedCache.clientConfiguration(url: url)
        configuration.options.additionalStartupParameters = [("search_path", "stash_tour")]
        let first = PostgresClient(configuration: configuration)
        let second = PostgresClient(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await first.run() }
            group.addTask { await second.run() }
            defer { group.cancelAll() }
            try await first.query("CREATE SCHEMA IF NOT EXISTS stash_tour")
            var cacheConfiguration = SharedCache.Configuration()
            cacheConfiguration.sizeLimit = 1 << 20
            let instanceA = SharedCache(client: first, configuration: cacheConfiguration)
            let instanceB = SharedCache(client: second, configuration: cacheConfiguration)
            try await instanceA.migrate()
            tour.say("Two SharedCache instances (two connection pools, as two servers would have) on \(url), table stash_tour.stash_cache.")

            try await instanceA.set(Data("rendered once for the fleet".utf8), forKey: "page/home", expiry: .after(60))
            let read = try await instanceB.value(forKey: "page/home").map { String(decoding: $0, as: UTF8.self) } ?? "(miss)"
            tour.say("A stores page/home; B reads it: \(read)")

            try await withThrowingTaskGroup(of: Void.self) { counters in
                counters.addTask { for _ in 0..<50 { try await instanceA.increment("visits") } }
                counters.addTask { for _ in 0..<50 { try await instanceB.increment("visits") } }
                try await counters.waitForAll()
            }
            tour.say("50 increments from each instance at once: visits = \(try await instanceA.increment("visits", by: 0))")

            let computed = try await instanceB.value(forKey: "report/daily", expiry: .after(300)) { Data("computed by B".utf8) }
            let again = try await instanceA.value(forKey: "report/daily", expiry: .after(300)) { Data("computed by A".utf8) }
            tour.say("value(forKey:orCompute:): B computed '\(String(decoding: computed, as: UTF8.self))', A found '\(String(decoding: again, as: UTF8.self))'")

            try await instanceB.set(key: "session/42", value: ["user": "ada"], expires: .seconds(1800))
            let session = try await instanceA.getWithTTL(key: "session/42", as: [String: String].self)
            tour.say("As a Hummingbird PersistDriver: session/42 = \(session?.object ?? [:]), ttl \(session?.ttl.map { "\($0.components.seconds) s" } ?? "none")")
            tour.say("Statistics of A: \(instanceA.statistics)")
            try await first.query("DROP SCHEMA stash_tour CASCADE")
        }
    }
}
