import StashCore
import StashPostgres
import Testing
import PostgresNIO

struct SharedCacheClientConfigurationTests {
    @Test func readsAURL() throws {
        let configuration = try SharedCache.clientConfiguration(url: "postgres://app:s%40cret@db.example:6432/cache?sslmode=disable")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6432)
        #expect(configuration.username == "app")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "cache")
        do {
            _ = try SharedCache.clientConfiguration(url: "http://db.example")
            Issue.record("an http URL was accepted")
        } catch StashError.Code.invalidName {}
        do {
            _ = try SharedCache.clientConfiguration(url: "postgres://db.example/x?sslmode=sometimes")
            Issue.record("an unknown sslmode was accepted")
        } catch StashError.Code.invalidName {}
    }

    @Test func passesOptionsAndApplicationNameToTheServer() throws {
        let configuration = try SharedCache.clientConfiguration(
            url: "postgres://app@db.example/cache?options=-c%20search_path%3Dproxy&application_name=stash-proxy&sslmode=disable"
        )
        let parameters = configuration.options.additionalStartupParameters
        #expect(parameters.count == 2)
        #expect(parameters.contains { $0.0 == "options" && $0.1 == "-c search_path=proxy" })
        #expect(parameters.contains { $0.0 == "application_name" && $0.1 == "stash-proxy" })
    }
}
