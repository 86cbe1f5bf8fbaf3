public import Foundation

/// Finds the executables that `swift build` put beside the test bundle: the test host (the
/// child process of crash and multi-process tests, target `StashTestHost`, not a product),
/// `stash` (the CLI) and `StashFuzz` (the fuzz targets' replayer).
public enum BuiltProducts {
    /// The build products folder (for example `.build/debug`).
    public static let folder: URL = {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for start in candidates {
            var url = start.standardizedFileURL
            for _ in 0..<4 {
                if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent(testHostName).path) {
                    return url
                }
                url.deleteLastPathComponent()
            }
        }
        return candidates[0]
    }()

    /// The test host's executable name: the target's own, since it is not a product.
    public static let testHostName = "StashTestHost"

    /// The test host: `StashTestHost SCENARIO ARGS…`.
    public static var testHost: URL { executable(testHostName) }

    /// The path of a built executable.
    public static func executable(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }
}
