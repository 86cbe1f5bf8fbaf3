import Foundation
import Testing

/// Docs, code comments and test names describe the package as it is: the history of its work
/// (issue numbers, passes, what moved from where) belongs in git and the issue tracker, and
/// a newcomer should not have to read past it.
struct NoWorkLogTests {
    /// What a work log leaves behind: a tracker's issue number, a before-and-after pass, a
    /// section that says where it used to be.
    static let patterns = [
        #"\b[Ii]ssues? #?[0-9]+\b"#,
        #"\b(before|after) this pass\b"#,
        #"\bmoved from the README\b"#,
    ]

    /// The Swift files of every target and snippet, the manifest, and the Markdown a user reads.
    static func files() -> [String] {
        let root = DocumentedExample.packageRoot
        var files = PackageFiles.swift(under: ["Sources", "Tests", "Snippets"]) + ["Package.swift"]
        for folder in ["Sources", "docs"] {
            guard let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path) else { continue }
            for case let path as String in walker.allObjects where path.hasSuffix(".md") { files.append("\(folder)/\(path)") }
        }
        files += ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"]
        return files.filter { !$0.hasSuffix("/NoWorkLogTests.swift") }
    }

    @Test func noFileCarriesAWorkLog() throws {
        let expressions = try Self.patterns.map { try NSRegularExpression(pattern: $0) }
        var found: [String] = []
        for file in Self.files() {
            let text = try String(contentsOf: DocumentedExample.packageRoot.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                let range = NSRange(line.startIndex..., in: line)
                if expressions.contains(where: { $0.firstMatch(in: line, range: range) != nil }) {
                    found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found.isEmpty, "\(found.count) lines:\n\(found.joined(separator: "\n"))")
    }
}
