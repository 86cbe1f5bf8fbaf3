import Foundation
import Testing

/// File-format arithmetic holds where `Int` has 32 bits (watchOS on arm64_32, a declared
/// platform): there `1 << 31` is `Int.min`, `1 << 32` is 0 and `Int(UInt32.max)` traps, so a
/// bound written that way would make a cache refuse every flush or trap at open. Formats
/// spell such bounds in fixed-width integers (`Int64(1) << 32`); this test reads the sources
/// of every module that writes a file format and names each line that does not.
struct FixedWidthArithmeticTests {
    static let formatModules = ["Sources/StashCore", "Sources/StashPreferences", "Sources/StashCache", "Sources/StashSecure", "Sources/StashHTTP"]
    static let ruledOut = try! NSRegularExpression(
        pattern: #"\bInt\((UInt32|UInt64|Int64)\.max\)|(?<![A-Za-z0-9_)])1 << (3[1-9]|[4-6][0-9])\b"#
    )

    static func offendingLines(in text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { number, line in
            let line = String(line)
            let range = NSRange(line.startIndex..., in: line)
            return ruledOut.firstMatch(in: line, range: range) == nil ? nil : "\(number + 1): \(line.trimmingCharacters(in: .whitespaces))"
        }
    }

    @Test func theRuleCatchesTheBoundsThatBreakOn32Bits() {
        #expect(Self.offendingLines(in: "guard records.count < 1 << 31 else { throw e }").count == 1)
        #expect(Self.offendingLines(in: "let n = metadataWord == Int(UInt32.max) ? 0 : w").count == 1)
        #expect(Self.offendingLines(in: "if end + count >= 1 << 32 {").count == 1)
        #expect(Self.offendingLines(in: "guard Int64(count) < Int64(1) << 31 else { throw e }").isEmpty)
        #expect(Self.offendingLines(in: "static let minimumCapacity = 1 << 10").isEmpty)
    }

    @Test func formatsUseFixedWidthBounds() throws {
        var offenders: [String] = []
        for path in PackageFiles.swift(under: Self.formatModules) {
            let text = try String(contentsOf: DocumentedExample.packageRoot.appendingPathComponent(path), encoding: .utf8)
            offenders += Self.offendingLines(in: text).map { "\(path):\($0)" }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
