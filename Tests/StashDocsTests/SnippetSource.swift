import Foundation

/// A file of `Snippets/`: what the documentation shows of it, and the executable it builds.
///
/// Lines between `// snippet.hide` and `// snippet.show` (set-up the text does not show,
/// checks of what it claims) are compiled and run but not shown, as in SwiftPM/DocC snippets.
struct SnippetSource {
    /// The path relative to the package root, such as `Snippets/README/ReadmeCore.swift`.
    var path: String

    /// The executable `swift build` makes of it: the file's name without `.swift`.
    var executableName: String { URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent }

    /// The shown lines, with trailing blank lines removed.
    func shownLines() throws -> [String] {
        let text = try String(contentsOf: DocumentedExample.packageRoot.appendingPathComponent(path), encoding: .utf8)
        var shown: [String] = []
        var hidden = false
        for line in text.components(separatedBy: "\n") {
            switch line.trimmingCharacters(in: .whitespaces) {
            case "// snippet.hide": hidden = true
            case "// snippet.show": hidden = false
            default: if !hidden { shown.append(line) }
            }
        }
        return Self.trimmed(shown)
    }

    /// Every snippet file under `Snippets/`.
    static func all() throws -> [String] {
        let root = DocumentedExample.packageRoot.appendingPathComponent("Snippets")
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { "Snippets/\($0)" }.sorted()
    }

    /// Lines without the blank ones at the start and the end.
    static func trimmed(_ lines: [String]) -> [String] {
        var lines = lines
        while lines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeFirst() }
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        return lines
    }
}
