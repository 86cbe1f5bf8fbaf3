import Foundation
import StashTestSupport
import Testing

/// Runs every snippet that needs no network as a child process, in a fresh sandbox (HOME,
/// the XDG folders and TMPDIR of a temporary folder), and checks what the text around its
/// block claims: the lines it prints (its hidden tail prints what the text promises) and
/// the files it creates. An example writes nothing on stderr.
struct SnippetRunTests {
    /// What a runnable snippet must print (each line, in order, among its output) and the
    /// files, relative to the sandbox root, it must leave.
    struct Expectation: Sendable, CustomTestStringConvertible {
        var snippet: String
        var lines: [String]
        var files: [String] = []
        var testDescription: String { snippet }
    }

    static let runnable: [Expectation] = [
        Expectation(snippet: "ReadmeImport", lines: ["Sandbox"]),
        Expectation(snippet: "ReadmeErrors", lines: ["Ada"]),
        Expectation(
            snippet: "ReadmeCore",
            lines: ["size 5", "settings true", "profile Ada dark", "shared group.com.example", "documents mode 700"],
            files: ["data/com.example.notes/Documents/note.txt", "data/com.example.notes/Documents/profile.plist",
                    "config/com.example.notes/app.plist"]
        ),
        Expectation(
            snippet: "ReadmeSQL", lines: [#"names ["Ada Lovelace"]"#, "count 1", "pool true other true"],
            files: ["data/com.example.notes/Documents/contacts.sqlite", "data/com.example.notes/library.sqlite", "tmp/data.sqlite"]
        ),
        Expectation(snippet: "ReadmeObjects", lines: ["adults 1", #"people ["Itcast-1"]"#, #"cards ["4400-1"]"#, "holders 1 withCards 1"]),
        Expectation(
            snippet: "ReadmeCaches", lines: ["products 1", "data 30000", "file true", "removed true"],
            files: ["cache/com.example.shop/images/manifest.sqlite"]
        ),
        Expectation(snippet: "ReadmeMemoryCache", lines: ["dropped https://example.com/b.jpg: purged", "data 100 count 0"]),
        Expectation(snippet: "ReadmePools", lines: ["restored 1"], files: ["cache/com.example.shop/recent.json"]),
        Expectation(snippet: "ReadmePreferences", lines: ["onboarding true profile Ada", "theme dark launches 1", "balance -5"]),
        Expectation(snippet: "ReadmeVault", lines: [#"["login"]"#, "token s3cr3t refresh r-123", "server x"]),
        Expectation(snippet: "ReadmeProxyLimits", lines: ["limits 10.0 seconds 512"]),
        Expectation(snippet: "DocCHTTPServerProxyLimits", lines: ["limits 10.0 seconds 512"]),
        Expectation(snippet: "DocCHTTPServerProxyOperations", lines: ["purged true 0"]),
        Expectation(snippet: "DocCStash", lines: ["db true prefs 0"], files: ["data/com.example.notes/Documents/notes.sqlite"]),
        Expectation(snippet: "DocCMemoryCache", lines: ["hit 6"]),
        Expectation(snippet: "DocCStashCache", lines: ["image 100"]),
        Expectation(snippet: "DocCStashCore", lines: [#"titles ["Hello"]"#], files: ["data/com.example.notes/Documents/titles.plist"]),
        Expectation(snippet: "DocCStashCoreErrors", lines: ["corrupt not an archive"]),
        Expectation(snippet: "DocCStashHTTPCookies", lines: ["jar 0"]),
        Expectation(snippet: "DocCHTTPServerMiddleware", lines: ["middleware added"]),
        Expectation(snippet: "DocCObjects", lines: [#"people ["Itcast-1"]"#]),
        Expectation(snippet: "DocCObjectsMigration", lines: [#"["36", "85"]"#]),
        Expectation(snippet: "DocCObjectContext", lines: [#"older ["Ada", "Grace"] temporary true card 4400"#, #"saved Grace 2 card owner 2 ada 37 clubs ["chess"]"#]),
        Expectation(
            snippet: "DocCFromCoreData",
            lines: [#"people ["Itcast-2", "Itcast-1"] card 4400-1 holder Itcast-1"#, #"holders ["Itcast-1"] youngest 25"#, #"after ["Grace 30"] cards 0"#]
        ),
        Expectation(snippet: "DocCFromSwiftData", lines: [#"stops ["Chur", "Zürich"] left 0"#]),
        Expectation(snippet: "DocCFromRealm", lines: ["dogs 2", #"young ["Rex"] owners ["Ada"]"#]),
        Expectation(snippet: "DocCFromUserDefaults", lines: ["theme dark launches 3 volume 0.7", "account Ada fontSize 14", "model 0.7 widget dark"]),
        Expectation(
            snippet: "DocCFromMMKV",
            lines: ["imported 4 volume 0.35 muted true nickname Ada", #"launches 8 keys ["launches", "muted", "volume"] left []"#, "token abc muted false"]
        ),
        Expectation(
            snippet: "DocCFromKeyedArchiver", lines: [#"notes ["Groceries", "Ideas"] pinned [false, true]"#, "keyed archive refused true kept true"],
            files: ["data/DocCFromKeyedArchiver/Documents/notes.plist"]
        ),
        Expectation(snippet: "DocCFromKeychain", lines: [#"token s3cr3t names ["api-token", "signing-key"] after ["login", "signing-key"]"#, "login ada shared s server x"]),
        Expectation(
            snippet: "DocCFromImageCaches",
            lines: ["from disk 40000", "count 1 bytes 40000 file true", "thumbnail 64", "cleared 0 0 false", "old folder removed true"],
            files: ["cache/DocCFromImageCaches/avatars/manifest.sqlite"]
        ),
        Expectation(
            snippet: "DocCFromURLCache",
            lines: ["outcomes network cache revalidated network", "offline unavailable 504", "hit 12 stored true refused true",
                    "profile true cache Ada", "usage true true", "hits 2 misses 2 revalidations 1", "forgotten 1 empty true 0"],
            files: ["cache/DocCFromURLCache/HTTPCache/manifest.sqlite"]
        ),
        Expectation(snippet: "DocCObjectGraph", lines: ["card 4400 owner Ada", #"children ["Byron"] chess ["Ada"] holders ["Ada"]"#]),
        Expectation(snippet: "DocCPreferences", lines: ["volume 0.5"]),
        Expectation(snippet: "DocCAppGroups", lines: ["suspended true", "suspended false"]),
        Expectation(snippet: "DocCPreferencesObservation", lines: ["volume 0.8", "the volume changed", "stored 0.3"]),
        Expectation(snippet: "DocCSQL", lines: ["count 1 async 1"]),
        Expectation(snippet: "DocCSecure", lines: ["token s3cr3t refresh r-123"]),
        Expectation(snippet: "DocCLiveObjects", lines: ["Ada: none", "Ada changed", "adults 1 ada 36"]),
        Expectation(snippet: "DocCVaultObservation", lines: ["signed out", "the sign-in changed", "stored true"]),
    ]

    /// Compiled by `swift build` but not run here, and why.
    static let compiledOnly: [String: String] = [
        "ReadmeHTTP": "fetches https://example.com",
        "ReadmeHTTPRange": "fetches https://example.com",
        "ReadmeHTTPStreaming": "streams from an origin on 127.0.0.1 that the example does not start",
        "ReadmeCookies": "fetches https://example.com and reads a cookies.txt from the working folder",
        "ReadmePostgres": "needs a PostgreSQL server at db.internal",
        "ReadmePostgresHTTP": "needs a PostgreSQL server at db.internal and serves on port 8080 until cancelled",
        "ReadmePreferencesMMKV": "needs an MMKV file written by MMKV",
        "DocCStashHTTP": "fetches https://example.com",
        "DocCAsyncClient": "fetches https://example.com",
        "DocCHTTPServerProxy": "serves on port 8080 until cancelled",
        "DocCPostgres": "needs a PostgreSQL server at db.internal",
    ]

    @Test func everySnippetIsRunOrSaysWhyNot() throws {
        let names = Set(try SnippetSource.all().map { SnippetSource(path: $0).executableName })
        let classified = Set(Self.runnable.map(\.snippet)).union(Self.compiledOnly.keys)
        #expect(names == classified, "add each new snippet to `runnable` (with what its text claims) or `compiledOnly`")
    }

    @Test(arguments: runnable)
    func runsAsTheTextSays(_ expectation: Expectation) throws {
        let folder = TemporaryFolder("snippet")
        let root = folder.url
        var environment = ["STASH_DOCS_SANDBOX": root.path]
        for (variable, name) in [("HOME", "home"), ("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config"),
                                 ("XDG_CACHE_HOME", "cache"), ("TMPDIR", "tmp")] {
            let url = root.appendingPathComponent(name, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            environment[variable] = url.path
        }
        environment["STASH_VAULT_KEY"] = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let child = try ChildProcess(BuiltProducts.executable(expectation.snippet), [], environment: environment)
        let output = child.readAllLines()
        let status = child.wait()
        let errors = child.standardError()
        #expect(status == 0, "\(expectation.snippet) exited with \(status): \(errors)")
        #expect(errors.isEmpty, "\(expectation.snippet) wrote on stderr (a log line of an example is a defect): \(errors)")
        var remaining = output[...]
        for line in expectation.lines {
            guard let index = remaining.firstIndex(of: line) else {
                Issue.record("\(expectation.snippet) did not print \(line.debugDescription) (in order); it printed \(output)")
                break
            }
            remaining = output[(index + 1)...]
        }
        for file in expectation.files {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(file).path), "\(expectation.snippet) left no \(file)")
        }
    }
}
