import Foundation

/// Finds executables that `swift build` put beside the test bundle: `stash-testhost` (the
/// child process of crash tests) and `stash` (the CLI).
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
                if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("stash-testhost").path) {
                    return url
                }
                url.deleteLastPathComponent()
            }
        }
        return candidates[0]
    }()

    /// The path of a built executable.
    public static func executable(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }
}
