import Foundation
import Testing

/// Every ```swift block of the README and of the DocC catalogues is a compiled snippet
/// (`Snippets/`, built by `swift build`), shown as it is in its file.
struct DocumentedExampleTests {
    @Test func everySwiftBlockIsMarkedWithItsSnippet() throws {
        let examples = try DocumentedExample.all()
        #expect(examples.count > 20)
        for example in examples where example.snippet == nil && !example.isExempt {
            Issue.record("\(example): a ```swift block without `<!-- snippet: Snippets/… -->` on the line before it")
        }
    }

    @Test func everyMarkedBlockShowsItsSnippet() throws {
        for example in try DocumentedExample.all() {
            guard let path = example.snippet else { continue }
            let source = SnippetSource(path: path)
            guard FileManager.default.fileExists(atPath: DocumentedExample.packageRoot.appendingPathComponent(path).path) else {
                Issue.record("\(example): \(path) does not exist")
                continue
            }
            let shown = try source.shownLines()
            let block = SnippetSource.trimmed(example.lines)
            if shown != block {
                let first = (0..<min(shown.count, block.count)).first { shown[$0] != block[$0] } ?? min(shown.count, block.count)
                Issue.record("""
                    \(example) differs from \(path) at shown line \(first + 1):
                      text:    \(first < block.count ? block[first] : "(end)")
                      snippet: \(first < shown.count ? shown[first] : "(end)")
                    """)
            }
        }
    }

    @Test func everySnippetIsShownSomewhere() throws {
        let marked = Set(try DocumentedExample.all().compactMap(\.snippet))
        for path in try SnippetSource.all() where !marked.contains(path) {
            Issue.record("\(path) is not shown by any README or DocC block")
        }
    }

    @Test func snippetNamesAreUnique() throws {
        let names = try SnippetSource.all().map { SnippetSource(path: $0).executableName }
        #expect(Set(names).count == names.count, "SwiftPM builds one executable per snippet name")
    }
}
