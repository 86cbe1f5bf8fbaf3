import Foundation

/// The running `stash-bench`, which starts itself again as a child for the work that needs a
/// process of its own (the disk scale probe, the proxy cases' floor server).
enum BenchExecutable {
    static var path: String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}
