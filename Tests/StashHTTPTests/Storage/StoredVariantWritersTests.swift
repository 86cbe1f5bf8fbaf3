import Foundation
import Testing

/// Every path that writes a URL's stored variants passes the storage rules: a new variant
/// or a freshened one is an `AdmittedResponse`, which only `HTTPCache+Admission.swift` makes
/// (the compiler holds that), and the lower-level writes that take plain variants are made
/// only where a review found them to write admitted variants or remove some. This test
/// reads the sources and fails when a write appears anywhere else, so that a new writer
/// cannot bypass the rules unnoticed: make it take an `AdmittedResponse`, or, when it only
/// removes variants, add it here after review.
struct StoredVariantWritersTests {
    /// A call that writes variants: its file, the function it is in, and what it calls.
    struct Write: Hashable, CustomStringConvertible {
        var file: String
        var function: String
        var callee: String
        var description: String { "\(file): \(function) calls \(callee)" }
    }

    /// The writes a review accepted, and why each is safe.
    static let reviewed: Set<Write> = [
        // The storage switch: shared storage or this process's memory and disk.
        Write(file: "HTTPCache+Storage.swift", function: "setVariants", callee: "setSharedVariants"),
        Write(file: "HTTPCache+Storage.swift", function: "setVariants", callee: "setLocalVariants"),
        Write(file: "HTTPCache+Storage.swift", function: "setLocalVariants", callee: "memory.set"),
        Write(file: "HTTPCache+Storage.swift", function: "setLocalVariants", callee: "hybrid.set"),
        Write(file: "HTTPCache+SharedStorage.swift", function: "setSharedVariants", callee: "storage.set"),
        // Writes of an AdmittedResponse in place of the variant it replaces.
        Write(file: "HTTPCache+Store.swift", function: "replace", callee: "setVariants"),
        Write(file: "HTTPCache+Store.swift", function: "storeResponse", callee: "replace"),
        Write(file: "HTTPCache+Store.swift", function: "storeResponse", callee: "setLocalVariants"),
        Write(file: "HTTPCache+Respond.swift", function: "exchange", callee: "replace"),
        Write(file: "HTTPCache+OtherMethods.swift", function: "update", callee: "replace"),
        Write(file: "HTTPCache+BodyFiles.swift", function: "storing", callee: "replace"),
        // Removals: the variants kept are a subset of those stored, or none.
        Write(file: "HTTPCache+Store.swift", function: "removeVariant", callee: "setVariants"),
        Write(file: "HTTPCache+Respond.swift", function: "streamResponse", callee: "setVariants"),
        Write(file: "HTTPCache+BodyFiles.swift", function: "dropVariant", callee: "setLocalVariants"),
        Write(file: "HTTPCache.swift", function: "removeResponses", callee: "setSharedVariants"),
        Write(file: "HTTPCache.swift", function: "removeResponses", callee: "setLocalVariants"),
    ]

    /// What counts as a write of variants.
    static let callees = ["setVariants", "setLocalVariants", "setSharedVariants", "replace", "memory.set", "hybrid.set", "storage.set"]

    static func writes(in folder: URL) throws -> Set<Write> {
        var found: Set<Write> = []
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
        for file in files {
            var function = "(top level)"
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                let code = line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "?.", with: ".")
                if code.hasPrefix("///") || code.hasPrefix("//") { continue }
                if let name = Self.declaredFunction(in: code) { function = name }
                for callee in callees where Self.calls(callee, in: code) {
                    found.insert(Write(file: file.lastPathComponent, function: function, callee: callee))
                }
            }
        }
        return found
    }

    /// The name of the function `line` declares, if it declares one.
    static func declaredFunction(in line: String) -> String? {
        guard let range = line.range(of: "func ") else { return nil }
        let name = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// Whether `line` calls `callee` (not a longer name that ends with it, nor its declaration).
    static func calls(_ callee: String, in line: String) -> Bool {
        var search = line[...]
        while let range = search.range(of: callee + "(") {
            let before = search[..<range.lowerBound].last
            let isCall = before.map { !($0.isLetter || $0.isNumber || $0 == "_") } ?? true
            if isCall, !line.contains("func \(callee)(") { return true }
            search = search[range.upperBound...]
        }
        return false
    }

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
    }

    @Test func everyWriterOfStoredVariantsIsReviewed() throws {
        var found = try Self.writes(in: Self.sources.appendingPathComponent("StashHTTP"))
        for module in ["StashHTTPServer/Proxy", "StashPostgresHTTP"] {
            found.formUnion(try Self.writes(in: Self.sources.appendingPathComponent(module)).filter { !$0.callee.hasSuffix(".set") })
        }
        let unreviewed = found.subtracting(Self.reviewed)
        #expect(unreviewed.isEmpty, "writes of stored variants that bypass the review: \(unreviewed.sorted { $0.description < $1.description })")
        let gone = Self.reviewed.subtracting(found)
        #expect(gone.isEmpty, "reviewed writes no longer in the sources (remove them from the list): \(gone.sorted { $0.description < $1.description })")
    }

    /// The scan itself sees a write where it is: a test that cannot fail is no test.
    @Test func theScanFindsAWriteAddedToASource() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("writers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
        extension HTTPCache {
            func sneak(_ stored: StoredResponse, key: PrimaryCacheKey) async {
                // replace(stored) in a comment is no write
                await setVariants([stored], replacing: nil, for: key)
                hybrid?.set([stored], forKey: key.storageKey)
            }
        }
        """.write(to: folder.appendingPathComponent("HTTPCache+Sneak.swift"), atomically: true, encoding: .utf8)
        #expect(try Self.writes(in: folder) == [
            Write(file: "HTTPCache+Sneak.swift", function: "sneak", callee: "setVariants"),
            Write(file: "HTTPCache+Sneak.swift", function: "sneak", callee: "hybrid.set"),
        ])
    }
}
