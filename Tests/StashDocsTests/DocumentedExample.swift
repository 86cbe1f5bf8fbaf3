import Foundation

/// One fenced ```swift block of the README or of a DocC catalogue, with the snippet the
/// HTML comment on the line before it names (`<!-- snippet: Snippets/README/ReadmeCore.swift -->`).
struct DocumentedExample: CustomStringConvertible {
    /// The markdown file, relative to the package root.
    var document: String
    /// The line of the opening fence (1-based).
    var line: Int
    /// The block's lines, without the fences.
    var lines: [String]
    /// The marker: a snippet path, or nil when the block has none.
    var snippet: String?
    /// True for a block marked `<!-- not a snippet: REASON -->` (the `Package.swift` install lines).
    var isExempt: Bool

    var description: String { "\(document):\(line)" }

    /// The package root: three folders above this file.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and every `Sources/*/*.docc/*.md`.
    static func documents() throws -> [String] {
        var found = ["README.md"]
        let fileManager = FileManager.default
        let sources = packageRoot.appendingPathComponent("Sources")
        for module in try fileManager.contentsOfDirectory(atPath: sources.path).sorted() {
            let moduleURL = sources.appendingPathComponent(module)
            guard let children = try? fileManager.contentsOfDirectory(atPath: moduleURL.path) else { continue }
            for catalogue in children.sorted() where catalogue.hasSuffix(".docc") {
                let catalogueURL = moduleURL.appendingPathComponent(catalogue)
                for file in try fileManager.contentsOfDirectory(atPath: catalogueURL.path).sorted() where file.hasSuffix(".md") {
                    found.append("Sources/\(module)/\(catalogue)/\(file)")
                }
            }
        }
        return found
    }

    /// Every ```swift block of every document.
    static func all() throws -> [DocumentedExample] {
        try documents().flatMap { try examples(in: $0) }
    }

    /// The ```swift blocks of one document.
    static func examples(in document: String) throws -> [DocumentedExample] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        var examples: [DocumentedExample] = []
        var index = 0
        while index < lines.count {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("```") else { index += 1; continue }
            let opening = index
            let indent = lines[index].prefix { $0 == " " }.count
            index += 1
            var body: [String] = []
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(String(lines[index].dropFirst(min(indent, lines[index].prefix { $0 == " " }.count))))
                index += 1
            }
            index += 1
            guard trimmed.lowercased().hasPrefix("```swift") else { continue }   // also ```Swift, ```swift title=…
            let marker = opening > 0 ? lines[opening - 1].trimmingCharacters(in: .whitespaces) : ""
            examples.append(DocumentedExample(
                document: document, line: opening + 1, lines: body,
                snippet: Self.value(of: "snippet:", in: marker),
                isExempt: Self.value(of: "not a snippet:", in: marker) != nil
            ))
        }
        return examples
    }

    private static func value(of label: String, in marker: String) -> String? {
        guard marker.hasPrefix("<!-- \(label)"), marker.hasSuffix("-->") else { return nil }
        return marker.dropFirst("<!-- \(label)".count).dropLast(3).trimmingCharacters(in: .whitespaces)
    }
}
