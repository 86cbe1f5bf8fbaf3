import Foundation
import HTTPTypes
import StashCore
@testable import StashHTTP
import StashTestSupport
import Testing

/// The jar across launches: what is saved, what is dropped, the writer lock, damage.
struct CookieJarPersistenceTests {
    let folder = TemporaryFolder("cookies")
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
    let site = URL(string: "https://www.example.com/shop")!

    func configuration(keepsSessionCookies: Bool = false, access: CookieJar.Access = .readWrite) -> CookieJar.Configuration {
        var configuration = CookieJar.Configuration()
        configuration.clock = clock
        configuration.keepsSessionCookies = keepsSessionCookies
        configuration.access = access
        return configuration
    }

    func open(keepsSessionCookies: Bool = false, access: CookieJar.Access = .readWrite) throws -> CookieJar {
        try CookieJar(sandbox: folder.sandbox(), configuration: configuration(keepsSessionCookies: keepsSessionCookies, access: access))
    }

    @Test func cookiesSurviveAReopenInApplicationSupport() throws {
        var jar: CookieJar? = try open()
        try jar?.setCookie("id=42; Max-Age=3600; Domain=example.com; Secure; HttpOnly; SameSite=Lax; Path=/", for: site)
        let saved = try #require(jar?.cookies().first)
        jar = nil
        #expect(FileStore.exists(folder.sandbox().applicationSupport.appendingPathComponent("Cookies/cookies.jar")))
        let reopened = try open()
        #expect(reopened.cookies() == [saved])
        #expect(reopened.cookieHeader(for: HTTPRequest(url: URL(string: "https://api.example.com/")!)) == "id=42")
    }

    @Test func sessionCookiesAreDroppedAtTheNextLaunchUnlessAsked() throws {
        do {
            let jar = try open()
            try jar.setCookie("session=1", for: site)
            try jar.setCookie("kept=1; Max-Age=3600", for: site)
            #expect(jar.count == 2)
        }
        #expect(try open().cookies().map(\.name) == ["kept"])

        do {
            let jar = try open(keepsSessionCookies: true)
            try jar.setCookie("session=1", for: site)
        }
        #expect(try open(keepsSessionCookies: true).cookies().map(\.name).sorted() == ["kept", "session"])
        // A launch that does not keep them drops them.
        _ = try open()
        #expect(try open(keepsSessionCookies: true).cookies().map(\.name) == ["kept"])
    }

    @Test func expiredCookiesAreNotLoaded() throws {
        do {
            let jar = try open()
            try jar.setCookie("short=1; Max-Age=10", for: site)
            try jar.setCookie("long=1; Max-Age=1000", for: site)
        }
        clock.advance(by: 11)
        #expect(try open().cookies().map(\.name) == ["long"])
    }

    @Test func oneWriterAtATimeReadersMayLook() throws {
        let writer = try open()
        try writer.setCookie("a=1; Max-Age=60", for: site)
        expectCookieError(.locked) { try open() }
        let reader = try open(access: .readOnly)
        #expect(reader.cookies().map(\.name) == ["a"])
        expectCookieError(.readOnly) { try reader.setCookie("b=1", for: site) }
        writer.close()
        expectCookieError(.closed) { try writer.setCookie("b=1", for: site) }
        _ = try open()
    }

    @Test func cookieNamesFollowSwiftStringEqualityAcrossAReopen() throws {
        do {
            let jar = try open()
            try jar.setCookie("caf\u{E9}=nfc; Max-Age=60", for: site)
            try jar.setCookie("cafe\u{301}=nfd; Max-Age=60", for: site)
            #expect(jar.count == 1)
        }
        let jar = try open()
        try jar.setCookie("caf\u{E9}=again; Max-Age=60", for: site)
        #expect(jar.cookies().map(\.value) == ["again"])
    }

    @Test func aDamagedFileIsReportedAndLeftUntouched() throws {
        do {
            let jar = try open()
            try jar.setCookie("a=1; Max-Age=60", for: site)
        }
        let file = folder.sandbox().applicationSupport.appendingPathComponent("Cookies/cookies.jar")
        var bytes = try FileStore.read(file)
        bytes[bytes.count / 2] ^= 0xFF
        try FileStore.write(bytes, to: file)
        expectCookieError(.corruptFile) { try open() }
        #expect(try FileStore.read(file) == bytes)
        try FileStore.write(bytes.prefix(10), to: file)
        expectCookieError(.truncatedFile) { try open() }
    }

    @Test func aFailedSaveChangesNothing() throws {
        let jar = try open()
        try jar.setCookie("a=1; Max-Age=60", for: site)
        // A folder where the jar file goes makes the atomic rename fail, even for root.
        let file = folder.sandbox().applicationSupport.appendingPathComponent("Cookies/cookies.jar")
        try FileStore.delete(file)
        try FileStore.createFolder(file)
        try Data("x".utf8).write(to: file.appendingPathComponent("blocker"))
        #expect(throws: StashError.self) { try jar.setCookie("b=1; Max-Age=60", for: site) }
        #expect(throws: StashError.self) { try jar.removeAll() }
        #expect(jar.cookies().map(\.name) == ["a"])
    }

    @Test func cookiesFromAResponseWaitInMemoryWhenASaveFailsAndAreSavedLater() throws {
        let jar = try open()
        let file = folder.sandbox().applicationSupport.appendingPathComponent("Cookies/cookies.jar")
        try FileStore.createFolder(file)
        try Data("x".utf8).write(to: file.appendingPathComponent("blocker"))
        var response = HTTPResponse(status: .ok)
        response.headerFields[.setCookie] = "early=1; Max-Age=600"
        jar.setCookies(from: response, for: HTTPRequest(url: site))
        #expect(jar.cookies().map(\.name) == ["early"])
        try FileStore.delete(file)
        try jar.setCookie("later=1; Max-Age=600", for: site)
        jar.close()
        #expect(try open().cookies().map(\.name) == ["early", "later"])
    }

    @Test func concurrentTasksShareOneJar() async throws {
        var configuration = configuration()
        configuration.durability = .processSafe
        configuration.countLimit = 1000
        configuration.countLimitPerDomain = 1000
        let jar = try CookieJar(sandbox: folder.sandbox(), configuration: configuration)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        #expect(throws: Never.self) { try jar.setCookie("t\(task)-\(index)=\(index); Max-Age=600", for: site) }
                        _ = jar.cookieHeader(for: HTTPRequest(url: site))
                    }
                }
            }
        }
        #expect(jar.count == 200)
        jar.close()
        #expect(try open().count == 200)
    }

    @Test func aKilledWriterLosesNothingItAcknowledged() throws {
        let directory = folder.url.appendingPathComponent("jar")
        let child = try ChildProcess.testHost("cookies.set-loop", directory.path)
        #expect(child.readLine() == "ready")
        var acknowledged = -1
        while acknowledged < 40, let line = child.readLine() {
            if line.hasPrefix("stored ") { acknowledged = Int(line.dropFirst(7)) ?? acknowledged }
        }
        expectCookieError(.locked) { try CookieJar(directory: directory) }
        let reader = try CookieJar(directory: directory, configuration: configuration(access: .readOnly))
        #expect(reader.count >= acknowledged + 1)
        child.kill()
        child.wait()
        let jar = try CookieJar(directory: directory)
        let names = Set(jar.cookies().map(\.name))
        for index in 0...acknowledged { #expect(names.contains("c\(index)"), "c\(index) was acknowledged") }
        #expect(jar.cookies().allSatisfy { $0.value == "v" + $0.name.dropFirst() })
    }
}
