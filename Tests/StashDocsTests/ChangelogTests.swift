import Foundation
import Testing

/// CHANGELOG.md says, per version, what a user must change and what behaves differently:
/// a section per version, and no speed figures (those live in the benchmark page, which a
/// script writes).
struct ChangelogTests {
    private var lines: [String] {
        get throws {
            let url = DocumentedExample.packageRoot.appendingPathComponent("CHANGELOG.md")
            return try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
    }

    @Test func everySectionIsAVersion() throws {
        let versions = try lines.filter { $0.hasPrefix("## ") }
        #expect(!versions.isEmpty)
        for heading in versions {
            #expect(heading.range(of: #"^## [0-9]+\.[0-9]+\.[0-9]+( \(.+\))?$"#, options: .regularExpression) != nil, "\(heading)")
        }
        let subsections = try lines.filter { $0.hasPrefix("### ") }
        #expect(subsections.allSatisfy { ["### What to change in your code", "### Behaviour that changed"].contains($0) }, "\(subsections)")
    }

    @Test func noEntryIsASpeedFigure() throws {
        let speed = try NSRegularExpression(pattern: #"\b(faster|as fast|fewer instructions)\b|[0-9.]+× "#, options: [.caseInsensitive])
        let found = try lines.enumerated().filter { _, line in
            speed.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        }.map { "CHANGELOG.md:\($0.offset + 1): \($0.element)" }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
