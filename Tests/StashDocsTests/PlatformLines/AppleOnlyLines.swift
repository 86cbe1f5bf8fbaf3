import Foundation

/// The lines of code that some Apple platform compiles and Linux does not: what the tests here
/// never compile. Counted over every Swift file of `Sources/`, `Tests/` and `Snippets/`, by
/// following each file's `#if` / `#elseif` / `#else` / `#endif` once per platform
/// (``CompilationCondition``).
///
/// A line of code is one that is not blank, not a `//` comment and not a directive. Lines that
/// no platform compiles (a dead `#else`) are not Apple-only, and are not counted.
struct AppleOnlyLines {
    /// One Apple-only line.
    struct Line: Hashable, CustomStringConvertible {
        /// The file, relative to the package root.
        var file: String
        /// 1-based.
        var number: Int
        var code: String

        var description: String { "\(file):\(number): \(code)" }
    }

    /// The folders scanned, relative to the package root.
    static let folders = ["Sources", "Tests", "Snippets"]

    /// Every Apple-only line of the package, by file then line.
    static func inPackage(root: URL) throws -> [Line] {
        var lines: [Line] = []
        for file in PackageFiles.swift(under: folders, root: root) {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            lines += try appleOnly(in: text, file: file)
        }
        return lines
    }

    /// The Apple-only lines of one file's text.
    static func appleOnly(in text: String, file: String) throws -> [Line] {
        let lines = text.components(separatedBy: "\n")
        let linux = try compiled(lines, file: file, on: .linux)
        var apple = Set<Int>()
        for platform in CompilationCondition.Platform.apple {
            apple.formUnion(try compiled(lines, file: file, on: platform))
        }
        return apple.subtracting(linux).sorted().map { index in
            Line(file: file, number: index + 1, code: lines[index].trimmingCharacters(in: .whitespaces))
        }
    }

    /// One open `#if` block while a file is read.
    private struct Block {
        /// Whether the code around the block is compiled.
        var outerActive: Bool
        /// Whether a branch of this block has been taken already.
        var taken: Bool
        /// Whether the current branch is compiled.
        var active: Bool
    }

    /// What a malformed file looks like to the scan.
    struct Malformed: Error, CustomStringConvertible {
        var file: String
        var line: Int
        var reason: String
        var description: String { "\(file):\(line): \(reason)" }
    }

    /// The indices of the lines of code `platform` compiles.
    static func compiled(_ lines: [String], file: String, on platform: CompilationCondition.Platform) throws -> Set<Int> {
        var blocks: [Block] = []
        var inMultilineString = false
        var result = Set<Int>()
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            // `#if` inside a multi-line string literal (a macro test's source) is text.
            let quotes = line.components(separatedBy: "\"\"\"").count - 1
            defer { if quotes % 2 == 1 { inMultilineString.toggle() } }
            let active = blocks.last?.active ?? true
            if !inMultilineString, trimmed.hasPrefix("#") {
                let directive = trimmed.prefix { !$0.isWhitespace }
                let condition = String(trimmed.dropFirst(directive.count)).components(separatedBy: "//")[0]
                func evaluate() throws -> Bool {
                    do { return try CompilationCondition.holds(condition, on: platform) } catch {
                        throw Malformed(file: file, line: index + 1, reason: "\(error)")
                    }
                }
                switch directive {
                case "#if":
                    let holds = try evaluate()
                    blocks.append(Block(outerActive: active, taken: holds, active: active && holds))
                    continue
                case "#elseif", "#else", "#endif":
                    guard var block = blocks.popLast() else {
                        throw Malformed(file: file, line: index + 1, reason: "\(directive) without #if")
                    }
                    if directive == "#endif" { continue }
                    let holds = directive == "#else" ? true : try evaluate()
                    block.active = block.outerActive && !block.taken && holds
                    block.taken = block.taken || holds
                    blocks.append(block)
                    continue
                default:
                    break
                }
            }
            if active, isCode(trimmed) || inMultilineString { result.insert(index) }
        }
        guard blocks.isEmpty else { throw Malformed(file: file, line: lines.count, reason: "#if without #endif") }
        return result
    }

    /// Not blank and not a `//` comment.
    static func isCode(_ trimmed: String) -> Bool {
        !trimmed.isEmpty && !trimmed.hasPrefix("//")
    }
}
