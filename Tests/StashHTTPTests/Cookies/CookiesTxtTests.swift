import Foundation
import HTTPTypes
import StashCore
@testable import StashHTTP
import StashTestSupport
import Testing

/// The Netscape cookies.txt format, against files curl wrote (Fixtures/make-fixtures.sh) and
/// read back by curl itself.
struct CookiesTxtTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures", isDirectory: true)
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))

    func jar() -> CookieJar {
        var configuration = CookieJar.Configuration()
        configuration.clock = clock
        return CookieJar(inMemory: configuration)
    }

    func header(_ jar: CookieJar, _ url: String) -> String? {
        jar.cookieHeader(for: HTTPRequest(url: URL(string: url)!))
    }

    @Test func importsWhatCurlWrote() throws {
        let jar = jar()
        #expect(try jar.importCookiesTxt(contentsOf: Self.fixtures.appendingPathComponent("curl-example.txt")) == 7)
        let byName = Dictionary(uniqueKeysWithValues: jar.cookies().map { ($0.name, $0) })
        #expect(byName["session"]?.isSession == true)
        #expect(byName["persistent"]?.expires == Date(timeIntervalSince1970: 2_110_737_627))
        #expect(byName["wide"]?.isHostOnly == false && byName["wide"]?.domain == "example.com")
        #expect(byName["secret"]?.isHTTPOnly == true && byName["secret"]?.domain == "www.example.com")
        #expect(byName["token"]?.path == "/account")
        #expect(byName["spaced"]?.value == "\"a b c\"")
        #expect(header(jar, "http://www.example.com/account/x") == "folder=default-path; token=xyz; persistent=forever; secret=hidden; session=s3ss10n; spaced=\"a b c\"; wide=everywhere")
        #expect(header(jar, "http://api.example.com/") == "wide=everywhere")

        let loopback = self.jar()
        #expect(try loopback.importCookiesTxt(contentsOf: Self.fixtures.appendingPathComponent("curl-loopback.txt")) == 5)
        #expect(loopback.cookies().first { $0.name == "secure" }?.isSecure == true)
        #expect(header(loopback, "http://127.0.0.1:1/")?.contains("secure=only-tls") == true)
    }

    @Test func badLinesImportNothingAndNameTheLine() throws {
        let jar = jar()
        let good = "example.com\tFALSE\t/\tFALSE\t0\tok\t1\n"
        for bad in ["example.com\tMAYBE\t/\tFALSE\t0\ta\t1", "example.com\tFALSE\t/\tFALSE\tsoon\ta\t1",
                    "example.com\tFALSE\t/", ".com\tTRUE\t/\tFALSE\t0\ta\t1", "exa mple.com\tFALSE\t/\tFALSE\t0\ta\t1",
                    "example.com\tFALSE\t/\tFALSE\t0\t\t1"] {
            let error = #expect(throws: StashError.self) { try jar.importCookiesTxt(good + bad + "\n") }
            #expect(error?.reason.hasPrefix("cookies.txt line 2") == true, "\(String(describing: error))")
        }
        #expect(jar.count == 0)
    }

    @Test func expiredLinesAreSkipped() throws {
        let jar = jar()
        let text = "# comment\n\nexample.com\tFALSE\t/\tFALSE\t1000\told\t1\r\nexample.com\tFALSE\t/\tFALSE\t2000000000\tnew\t1\r\n"
        #expect(try jar.importCookiesTxt(text) == 1)
        #expect(jar.cookies().map(\.name) == ["new"])
    }

    @Test func exportRoundTrips() throws {
        let jar = jar()
        try jar.importCookiesTxt(contentsOf: Self.fixtures.appendingPathComponent("curl-example.txt"))
        let again = self.jar()
        try again.importCookiesTxt(jar.exportCookiesTxt())
        #expect(again.cookies().map(\.description) == jar.cookies().map(\.description))
    }

    /// curl reads the exported file (`-b`) and sends the cookies to a loopback origin.
    @Test func curlReadsTheExport() async throws {
        let folder = TemporaryFolder("cookies-txt")
        let origin = try await TestOrigin.start(clock: clock)
        defer { origin.stop() }
        origin.set("/app/page", .ok([]))
        let jar = CookieJar(inMemory: CookieJar.Configuration())
        let base = URL(string: "http://127.0.0.1:\(origin.port)/app/")!
        try jar.setCookie("sid=123; Path=/app; Max-Age=3600", for: base)
        try jar.setCookie("pref=a; HttpOnly", for: base)
        try jar.setCookie("other=x; Path=/elsewhere", for: base)
        let file = folder.file("cookies.txt")
        try jar.exportCookiesTxt(to: file)

        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-o", "/dev/null", "-b", file.path, "-c", folder.file("after.txt").path, "http://127.0.0.1:\(origin.port)/app/page"]
        try curl.run()
        // Off the cooperative pool: the origin curl talks to needs it to answer.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { curl.waitUntilExit(); done.resume() }.start()
        }
        #expect(curl.terminationStatus == 0)
        let sent = origin.requests("/app/page").first?.headerFields[.cookie]
        #expect(sent?.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.sorted() == ["pref=a", "sid=123"])
        // And what curl writes back imports into the same cookies.
        let back = CookieJar(inMemory: CookieJar.Configuration())
        try back.importCookiesTxt(contentsOf: folder.file("after.txt"))
        #expect(Set(back.cookies().map { "\($0.name)=\($0.value)@\($0.domain)\($0.path)" }) == Set(jar.cookies().map { "\($0.name)=\($0.value)@\($0.domain)\($0.path)" }))
    }
}
