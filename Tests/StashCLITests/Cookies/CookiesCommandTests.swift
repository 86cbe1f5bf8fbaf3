import Foundation
import StashCore
import StashTestSupport
import Testing

/// `stash cookies`, run as a user would, on the curl-written fixture of StashHTTPTests.
struct CookiesCommandTests {
    static let curlFixture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("StashHTTPTests/Cookies/Fixtures/curl-example.txt")

    @Test func importListDeleteExportClear() throws {
        let folder = TemporaryFolder("cli-cookies")
        let jar = ["--root", folder.url.appendingPathComponent("sandbox").path, "--app", "com.example.cookies"]
        let imported = try StashExecutable.run(["cookies", "import", Self.curlFixture.path] + jar)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "imported 7 cookies\n")

        let listed = try StashExecutable.run(["cookies", "list", "--domain", "example.com"] + jar)
        let lines = listed.output.split(separator: "\n")
        #expect(lines.count == 7)
        #expect(lines.contains { $0.hasPrefix("example.com\t/\twide=everywhere\t") && $0.hasSuffix("subdomains") })
        #expect(lines.contains { $0.contains("secret=hidden") && $0.hasSuffix("host-only,httponly") })

        let deleted = try StashExecutable.run(["cookies", "delete", "--domain", "www.example.com", "--name", "session"] + jar)
        #expect(deleted.output == "deleted 1 cookie\n")

        let exported = try StashExecutable.run(["cookies", "export"] + jar)
        #expect(exported.output.contains("#HttpOnly_www.example.com\tFALSE\t/\tFALSE\t2110737627\tsecret\thidden\n"))
        #expect(exported.output.contains(".example.com\tTRUE\t/\tFALSE\t2110737627\twide\teverywhere\n"))
        #expect(!exported.output.contains("session"))

        let bad = try StashExecutable.run(["cookies", "import", "-"] + jar, input: "example.com\tTRUE\t/\tFALSE\t0\tok\t1\n.com\tTRUE\t/\tFALSE\t0\tevil\t1\n")
        #expect(bad.status != 0)
        #expect(bad.errors.contains("invalid cookie") && bad.errors.contains("line 2"))

        let cleared = try StashExecutable.run(["cookies", "clear"] + jar)
        #expect(cleared.output == "deleted 6 cookies\n")
        #expect(try StashExecutable.run(["cookies", "list"] + jar).output.isEmpty)
    }
}
