import Foundation
import Testing

/// `@inlinable` members of a `package` type are inlined by other modules only when the type
/// is `@usableFromInline`: without it they compile without a word and are called out of
/// line (a `BinaryWriter` so declared cost preference writes a seventh of their time). This
/// test reads every source file and names each `package` type that has `@inlinable` members
/// (in its body or in an extension, in any file) but is not `@usableFromInline`.
struct InlinableDeclarationTests {
    @Test func packageTypesWithInlinableMembersAreUsableFromInline() throws {
        // A top-level `struct`, `enum`, `class` or `extension` line, with the attributes
        // before it on the same line: its access, kind and name.
        let topLevel = #/^(?<attributes>(?:@\w+(?:\([^)]*\))?\s+)*)(?<access>public|package|internal|fileprivate|private)?\s*(?:final\s+)?(?<kind>struct|enum|class|actor|extension)\s+(?<name>\w+)/#
        var inlinedInto: Set<String> = []
        var declarations: [String: (access: String, usableFromInline: Bool, file: String)] = [:]
        let files = PackageFiles.swift(under: ["Sources"])
        #expect(files.count > 100, "read \(files.count) source files")
        for file in files {
            let url = DocumentedExample.packageRoot.appendingPathComponent(file)
            let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            var current: String?
            var attributesAbove: [String] = []
            var inlinableAbove = false
            for line in lines {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if let match = line.firstMatch(of: topLevel) {
                    current = String(match.name)
                    if match.kind != "extension" {
                        let attributes = attributesAbove.joined(separator: " ") + " " + match.attributes
                        declarations[current!] = (String(match.access ?? "internal"), attributes.contains("@usableFromInline"), file)
                    }
                } else if inlinableAbove, trimmed.hasPrefix("package "), let current {
                    inlinedInto.insert(current)
                }
                if trimmed.hasPrefix("@") {
                    attributesAbove.append(trimmed)
                    if trimmed.hasPrefix("@inlinable") { inlinableAbove = true }
                } else if !trimmed.hasPrefix("///") && !trimmed.hasPrefix("//") {
                    attributesAbove = []
                    inlinableAbove = false
                }
            }
        }
        #expect(inlinedInto.contains("BinaryWriter"), "found inlinable package members in \(inlinedInto.sorted())")
        for name in inlinedInto.sorted() {
            guard let declaration = declarations[name], declaration.access == "package" else { continue }
            #expect(declaration.usableFromInline, "\(name) (\(declaration.file)) has @inlinable package members but is not @usableFromInline")
        }
    }
}
