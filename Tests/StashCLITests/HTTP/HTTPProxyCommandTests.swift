import Foundation
import StashTestSupport
import Testing

/// `stash http-proxy`'s limit and shared-cache options, checked before anything listens.
struct HTTPProxyCommandTests {
    @Test(arguments: [
        (["--header-timeout", "0"], "--header-timeout"),
        (["--idle-timeout=-1"], "--idle-timeout"),
        (["--upstream-read-timeout", "100000"], "--upstream-read-timeout"),
        (["--max-connections=-5"], "--max-connections"),
        (["--shared-cache-timeout", "0"], "--shared-cache-timeout"),
        (["--shared-cache-capacity", "0"], "--shared-cache-capacity"),
        (["--shared-cache", "http://db.example/cache"], "--shared-cache"),
        (["--shared-cache", "postgres://db.example/cache?sslmode=sometimes"], "--shared-cache"),
    ])
    func outOfRangeLimitsAreRefused(_ options: [String], _ named: String) throws {
        let result = try StashExecutable.run(
            ["http-proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--disk-capacity", "0"] + options
        )
        #expect(result.status != 0)
        #expect(result.errors.contains(named), "\(result.errors)")
        #expect(result.output.isEmpty)
    }
}
