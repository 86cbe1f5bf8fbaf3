import Foundation
import Testing

/// The Apple-only code stays small, and docs/ARCHITECTURE.md lists it as it is.
struct AppleOnlyLinesTests {
    /// Lines of `Sources/` that only Apple platforms compile, `import Darwin` lines included:
    /// fewer than this.
    static let limit = 60

    /// `import Darwin` (or `package`/`public import Darwin`): the twin of `import Glibc`,
    /// listed apart.
    static func isLibraryImport(_ line: AppleOnlyLines.Line) -> Bool {
        line.code.hasSuffix("import Darwin") && line.code.split(separator: " ").count <= 3
    }

    struct Census {
        var code: [String: Int] = [:]
        var imports = 0
        var importFiles = Set<String>()
        var tests = 0

        var codeTotal: Int { code.values.reduce(0, +) }

        init(_ lines: [AppleOnlyLines.Line]) {
            for line in lines {
                if !line.file.hasPrefix("Sources/") {
                    tests += 1
                } else if AppleOnlyLinesTests.isLibraryImport(line) {
                    imports += 1
                    importFiles.insert(line.file)
                } else {
                    code[line.file, default: 0] += 1
                }
            }
        }

        /// The section's figures line and bullets, as the documentation must state them.
        var expectedLines: [String] {
            ["\(codeTotal) lines of code, \(imports) `import Darwin` lines in \(importFiles.count) files, \(tests) lines of tests and snippets."]
                + code.keys.sorted().map { "- `\($0)` (\(code[$0]!))" }
        }
    }

    @Test func sourcesHaveFewerAppleOnlyLinesThanTheLimit() throws {
        let census = Census(try AppleOnlyLines.inPackage(root: DocumentedExample.packageRoot))
        #expect(census.codeTotal + census.imports < Self.limit, "Apple-only code lines: \(census.code), and \(census.imports) `import Darwin` lines")
    }

    /// The section between `<!-- apple-only lines -->` and `<!-- end of apple-only lines -->`
    /// states the computed figures and one bullet per file (`- \`path\` (count): what`).
    @Test func architectureListsEveryAppleOnlyLine() throws {
        let census = Census(try AppleOnlyLines.inPackage(root: DocumentedExample.packageRoot))
        let text = try String(contentsOf: DocumentedExample.packageRoot.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let section = try #require(
            text.components(separatedBy: "<!-- apple-only lines -->").dropFirst().first?.components(separatedBy: "<!-- end of apple-only lines -->").first,
            "docs/ARCHITECTURE.md has no apple-only section"
        )
        let stated = section.components(separatedBy: "\n").compactMap { line -> String? in
            if line.hasPrefix("- `") { return line.components(separatedBy: "): ")[0] + (line.contains("): ") ? ")" : "") }
            if line.contains("lines of code,") { return line }
            return nil
        }
        #expect(stated == census.expectedLines, "state these in docs/ARCHITECTURE.md:\n\(census.expectedLines.joined(separator: "\n"))")
    }

    // MARK: The scan itself

    func appleOnly(_ source: String) throws -> [Int] {
        try AppleOnlyLines.appleOnly(in: source, file: "Sample.swift").map(\.number)
    }

    @Test func theBranchLinuxSkipsIsCounted() throws {
        let source = """
            #if canImport(Darwin)
            import Darwin
            #elseif canImport(Glibc)
            import Glibc
            #endif
            #if os(Linux)
            let a = 1
            #else
            let a = 2

            // a comment
            #endif
            """
        #expect(try appleOnly(source) == [2, 9])
    }

    @Test func nestedAndCompoundConditions() throws {
        let source = """
            #if canImport(Darwin) && !os(macOS)
            let iOS = 1
            #elseif os(macOS) || os(Windows)
            let macOS = 1
            #endif
            #if canImport(Security)
            #if os(Linux)
            let never = 1
            #else
            let apple = 1
            #endif
            #endif
            #if _pointerBitWidth(_64)
            let wide = 1
            #else
            let watch = 1
            #endif
            """
        #expect(try appleOnly(source) == [2, 4, 10, 16])
    }

    /// A branch that no platform compiles (`import SQLite3` after `canImport(GRDBSQLite)`) is
    /// dead, not Apple-only; a `#if` inside a multi-line string is text.
    @Test func deadBranchesAndStringsAreNotCounted() throws {
        let source = """
            #if canImport(GRDBSQLite)
            import GRDBSQLite
            #else
            import SQLite3
            #endif
            let text = \"\"\"
            #if os(Linux)
            #else
            \"\"\"
            """
        #expect(try appleOnly(source) == [])
    }

    @Test func anUnknownModuleOrAnUnbalancedBlockIsAnError() {
        #expect(throws: AppleOnlyLines.Malformed.self) { try appleOnly("#if canImport(Mystery)\n#endif") }
        #expect(throws: AppleOnlyLines.Malformed.self) { try appleOnly("#if os(macOS)\nlet a = 1") }
        #expect(throws: AppleOnlyLines.Malformed.self) { try appleOnly("#endif") }
    }
}
