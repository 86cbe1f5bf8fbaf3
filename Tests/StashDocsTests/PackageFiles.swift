import Foundation

/// The package's own files, for the tests that read its sources.
enum PackageFiles {
    /// The Swift files under `folders` (relative to `root`, the package root by default), as
    /// paths relative to `root`, sorted.
    static func swift(under folders: [String], root: URL = DocumentedExample.packageRoot) -> [String] {
        var files: [String] = []
        for folder in folders {
            guard let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path) else { continue }
            for case let path as String in walker.allObjects where path.hasSuffix(".swift") {
                files.append("\(folder)/\(path)")
            }
        }
        return files.sorted()
    }
}
