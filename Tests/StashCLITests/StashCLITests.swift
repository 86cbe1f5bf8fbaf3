import Foundation
import StashCore
import StashTestSupport
import Testing

/// Runs the built `stash` binary as a user would.
/// Serialized: the two tour tests would otherwise run at once, and with `STASH_POSTGRES_URL`
/// set (CI) both tours' shared-cache steps work on the same PostgreSQL table.
@Suite(.serialized)
struct StashCLITests {
    static func run(_ arguments: String...) throws -> StashExecutable.Result {
        try StashExecutable.run(arguments)
    }

    @Test func pathsWithARootListEveryFolderAndCreateNothing() throws {
        let folder = TemporaryFolder("cli")
        let root = folder.url.appendingPathComponent("sandbox").path
        let result = try Self.run("paths", "--app", "com.example.cli", "--root", root)
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines.first { $0.hasPrefix("documents") }?.hasSuffix(root + "/Documents") == true)
        #expect(lines.first { $0.hasPrefix("caches") }?.contains("not backed up") == true)
        #expect(!FileStore.exists(URL(fileURLWithPath: root)))
    }

    @Test func plistConvertAndPrint() throws {
        let folder = TemporaryFolder("cli")
        let source = folder.file("settings.plist")
        let value: PropertyList = ["name": "Ada", "volume": 0.5, "tags": ["a", "b"], "blob": .data(Data([1, 2]))]
        try value.write(to: source, format: .xml)

        let binary = folder.file("settings.bin.plist")
        let converted = try Self.run("plist", "convert", source.path, "--to", "binary", "--output", binary.path)
        #expect(converted.status == 0, "\(converted.errors)")
        #expect(PropertyListFormat.detect(try FileStore.read(binary)) == .binary)
        #expect(try PropertyList(contentsOf: binary) == value)

        let inPlace = try Self.run("plist", "convert", binary.path, "--to", "json")
        #expect(inPlace.status == 0)
        #expect(PropertyListFormat.detect(try FileStore.read(binary)) == .json)

        let printed = try Self.run("plist", "print", source.path)
        #expect(printed.status == 0)
        #expect(printed.output.contains("xml property list"))
        #expect(printed.output.contains(#""name" => "Ada""#))
        #expect(printed.output.contains(#""volume" => 0.5"#))
        #expect(printed.output.contains("1 => \"b\""))
    }

    @Test func aCorruptFileIsOneLineOnStderrAndANonZeroExit() throws {
        let folder = TemporaryFolder("cli")
        let broken = folder.file("broken.plist")
        try FileStore.write(Data("<plist><dict><key>a</key>".utf8), to: broken)
        let result = try Self.run("plist", "print", broken.path)
        #expect(result.status != 0)
        #expect(result.output.isEmpty)
        let lines = result.errors.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(broken.path) == true)
        #expect(try FileStore.read(broken) == Data("<plist><dict><key>a</key>".utf8))
    }

    @Test func badArgumentsFail() throws {
        let result = try Self.run("plist", "convert", "/nonexistent.plist", "--to", "yaml")
        #expect(result.status != 0)
        #expect(!result.errors.isEmpty)
        let missing = try Self.run("plist", "print", "/nonexistent/file.plist")
        #expect(missing.status != 0)
        #expect(missing.errors.split(separator: "\n").count == 1)
    }

    @Test func tourRunsItsFoundationSteps() throws {
        let folder = TemporaryFolder("cli")
        let root = folder.url.appendingPathComponent("tour").path
        let result = try Self.run("tour", "--root", root)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("== Sandbox and files =="))
        #expect(result.output.contains("1 -> 2 migration"))
        #expect(result.output.contains("rolled back"))
        #expect(FileStore.exists(URL(fileURLWithPath: root + "/Documents/contacts.sqlite")))
        #expect(FileStore.exists(URL(fileURLWithPath: root + "/Documents/profile.plist")))
    }

    /// The tour shows every capability the README lists, gives the same answers on a
    /// loaded machine (the caches' clocks are manual), and suggests commands only on folders
    /// that outlive it.
    @Test func tourShowsEveryCapabilityDeterministically() throws {
        let result = try Self.run("tour")
        #expect(result.status == 0, "\(result.errors)")
        let output = result.output
        for heading in ["Memory caches, pools and queues", "Disk, hybrid and business caches", "Caching proxy",
                        "HTTP cache", "Preferences", "Secure storage", "Cookies"] {
            #expect(output.contains("== \(heading) =="), "no step \(heading)")
        }
        #expect(output.contains("evicted, least recently used first: b.png (countLimit)"))
        #expect(output.contains("pushed out: tea"))
        #expect(output.contains("groupContainer(\"group.com.example.tour\")"))
        #expect(output.contains("at once (hit): 200 from cache, Age 0"))
        #expect(output.contains("(revalidated with If-None-Match, 304): 200 from revalidated"))
        #expect(output.contains("25 s later (a hit, served by the proxy): 200, Age 25"))
        #expect(output.contains("fwd-status=304"))
        #expect(output.contains("The origin saw 2 requests for 3 answers."))
        // The temporary sandbox is removed at the end: no hint names one of its folders.
        #expect(output.contains("Try: stash tour --root DIR, then stash cache stats --dir DIR/Library/Caches/"))
        #expect(!output.contains("Try: stash cache stats --dir /"))
    }
}
