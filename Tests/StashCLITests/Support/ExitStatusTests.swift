import Foundation
import StashCore
import StashTestSupport
import Testing

/// Every failing command prints one line on standard error and exits with the documented
/// status; the usage text appears for usage mistakes only.
struct ExitStatusTests {
    @Test func aMissingPreferenceIsOneLineAndStatusOne() throws {
        let folder = TemporaryFolder("cli-exit")
        let root = folder.url.appendingPathComponent("sandbox").path
        let write = try StashExecutable.run(["defaults", "write", "--root", root, "com.example.exit", "present", "yes"])
        #expect(write.status == 0, "\(write.errors)")

        for arguments in [
            ["defaults", "read", "--root", root, "com.example.exit", "missing"],
            ["defaults", "delete", "--root", root, "com.example.exit", "missing"],
        ] {
            let result = try StashExecutable.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty)
            let lines = result.errors.split(separator: "\n")
            #expect(lines.count == 1, "\(result.errors)")
            #expect(lines.first?.hasPrefix("stash: not found") == true)
            #expect(lines.first?.contains("missing") == true)
            #expect(!result.errors.contains("USAGE") && !result.errors.contains("Usage"))
        }
        let present = try StashExecutable.run(["defaults", "read", "--root", root, "com.example.exit", "present"])
        #expect(present.status == 0)
    }

    @Test func aCorruptFileIsStatus65() throws {
        let folder = TemporaryFolder("cli-exit")
        let broken = folder.file("broken.plist")
        try FileStore.write(Data("bplist00garbage".utf8), to: broken)
        let result = try StashExecutable.run(["plist", "print", broken.path])
        #expect(result.status == 65, "\(result.errors)")
        #expect(result.errors.split(separator: "\n").count == 1)
    }

    @Test func aMissingFileIsStatusOne() throws {
        let result = try StashExecutable.run(["plist", "print", "/nonexistent/file.plist"])
        #expect(result.status == 1, "\(result.errors)")
        #expect(result.errors.split(separator: "\n").count == 1)
    }

    @Test func usageMistakesShowTheUsageAndStatus64() throws {
        let result = try StashExecutable.run(["plist", "convert", "a.plist", "--to", "yaml"])
        #expect(result.status == 64, "\(result.errors)")
        #expect(result.errors.contains("Usage") || result.errors.contains("USAGE"))
        let unknown = try StashExecutable.run(["no-such-command"])
        #expect(unknown.status == 64)
    }

    @Test func helpOfASubcommandIsStatusZero() throws {
        for arguments in [["--help"], ["defaults", "--help"], ["defaults", "read", "--help"], ["http-proxy", "--help"]] {
            let result = try StashExecutable.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.errors)")
            #expect(result.output.contains("USAGE") || result.output.contains("Usage"), "\(arguments)")
        }
    }
}
