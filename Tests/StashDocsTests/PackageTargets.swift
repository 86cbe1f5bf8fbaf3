import Foundation
import StashTestSupport

/// The targets of `Package.swift` and their direct dependencies, as `swift package
/// dump-package` reports them: a Stash target by its name, another package's product by its
/// package's name (`.product(name: "NIOCore", package: "swift-nio")` is `swift-nio`).
struct PackageTargets: Sendable {
    struct Target: Sendable {
        var name: String
        /// `regular`, `executable`, `macro`, `test`, …
        var type: String
        var dependencies: Set<String>
        /// The dependencies needed only with a package trait (the server parts' packages).
        var traitDependencies: Set<String>
    }

    var targets: [Target]
    /// The targets of the library products: the modules users import.
    var libraryTargets: Set<String>

    /// The manifest, read once for every test that asks.
    static let current: Result<PackageTargets, any Error> = Result { try dump() }

    /// Runs `swift package dump-package` on the package root (the `swift` on `PATH`, as
    /// `swift test` itself was found), with a scratch folder of its own so that it never waits
    /// for the lock of the build that runs the tests.
    static func dump() throws -> PackageTargets {
        let scratch = TemporaryFolder("dump-package")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "package", "--package-path", DocumentedExample.packageRoot.path,
            "--scratch-path", scratch.url.path, "dump-package",
        ]
        let output = Pipe()
        let errors = scratch.file("stderr.txt")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil) // FileHandle(forWritingTo:) throws when it failed
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let json = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw DumpFailure(description: "swift package dump-package exited with \(process.terminationStatus): \(message)")
        }
        return try PackageTargets(json: json)
    }

    struct DumpFailure: Error, CustomStringConvertible {
        var description: String
    }

    init(json: Data) throws {
        guard let manifest = try JSONSerialization.jsonObject(with: json) as? [String: Any],
              let targets = manifest["targets"] as? [[String: Any]],
              let products = manifest["products"] as? [[String: Any]] else {
            throw DumpFailure(description: "dump-package printed no targets and products")
        }
        self.targets = targets.map { target in
            Target(
                name: target["name"] as? String ?? "",
                type: target["type"] as? String ?? "",
                dependencies: Set((target["dependencies"] as? [[String: Any]] ?? []).compactMap(Self.dependencyName)),
                traitDependencies: Set((target["dependencies"] as? [[String: Any]] ?? []).filter(Self.needsTrait).compactMap(Self.dependencyName))
            )
        }
        libraryTargets = Set(products.filter { ($0["type"] as? [String: Any])?["library"] != nil }
            .flatMap { $0["targets"] as? [String] ?? [] })
    }

    /// The library targets that need no package trait, themselves or through another target:
    /// what an app that enables no trait can use.
    var traitFreeLibraryTargets: Set<String> {
        let byName = Dictionary(targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var memo: [String: Bool] = [:]
        func needsTrait(_ name: String) -> Bool {
            if let known = memo[name] { return known }
            guard let target = byName[name] else { return false } // another package's product
            memo[name] = false
            let answer = !target.traitDependencies.isEmpty || target.dependencies.contains(where: needsTrait)
            memo[name] = answer
            return answer
        }
        return libraryTargets.filter { !needsTrait($0) }
    }

    /// True for a dependency whose condition names a trait.
    private static func needsTrait(_ dependency: [String: Any]) -> Bool {
        guard let fields = (dependency["product"] ?? dependency["byName"] ?? dependency["target"]) as? [Any],
              let condition = fields.last as? [String: Any],
              let traits = condition["traits"] as? [String] else { return false }
        return !traits.isEmpty
    }

    /// `{"byName": [name, condition]}`, `{"target": [name, condition]}`, or
    /// `{"product": [name, package, moduleAliases, condition]}`.
    private static func dependencyName(_ dependency: [String: Any]) -> String? {
        if let product = dependency["product"] as? [Any] {
            return (product.count > 1 ? product[1] as? String : nil) ?? product.first as? String
        }
        let named = (dependency["byName"] ?? dependency["target"]) as? [Any]
        return named?.first as? String
    }
}
