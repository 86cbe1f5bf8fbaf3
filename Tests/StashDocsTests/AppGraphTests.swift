import Foundation
import StashTestSupport
import Testing

/// What an app's package list gains when it depends on Stash: a throwaway app package
/// depends on this checkout (its working tree, committed to a repository of its own, fetched
/// by URL as a user's package is) and resolves. Without the `Server` trait the list must be
/// the one the README's install section gives; with it, the server parts' packages come.
@Suite struct AppGraphTests {
    /// Every library a trait-free app can use, `StashObjectsMacros` and `StashTesting` among
    /// them, resolves exactly the packages the README lists.
    @Test func anAppResolvesOnlyThePackagesTheREADMEGives() async throws {
        let manifest = try PackageTargets.current.get()
        let products = manifest.traitFreeLibraryTargets.sorted()
        #expect(products.contains("Stash") && products.contains("StashObjectsMacros") && products.contains("StashTesting"))
        #expect(!products.contains("StashHTTPServer") && !products.contains("StashPostgres"))
        let listed = try Self.readmeList()
        let resolved = try await offThePool { try AppPackage(products: products, traits: nil).resolve() }
        #expect(resolved == listed, "an app resolves \(resolved.sorted()); the README lists \(listed.sorted())")
    }

    /// A server package that enables the trait gets the proxy's and the PostgreSQL cache's
    /// packages.
    @Test func aServerPackageWithTheTraitGetsTheServerParts() async throws {
        let resolved = try await offThePool {
            try AppPackage(products: ["StashHTTPServer", "StashPostgres"], traits: ["Server"]).resolve()
        }
        for package in ["hummingbird", "postgres-nio", "swift-nio", "async-http-client"] {
            #expect(resolved.contains(package), "\(package) is missing from \(resolved.sorted())")
        }
    }

    /// The package names in backquotes of the paragraph after `<!-- app graph -->`, up to the end
    /// of its first sentence (a period and a space).
    static func readmeList() throws -> Set<String> {
        let readme = try String(contentsOf: DocumentedExample.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let marker = readme.range(of: "<!-- app graph -->") else {
            throw PackageTargets.DumpFailure(description: "README.md has no <!-- app graph --> paragraph")
        }
        let rest = readme[marker.upperBound...]
        let paragraph = rest[..<(rest.range(of: ". ")?.lowerBound ?? rest.endIndex)]
        let names = paragraph.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { $0.element.lowercased() }
        return Set(names)
    }
}

/// A throwaway app package depending on this checkout by URL.
private struct AppPackage {
    let folder = TemporaryFolder("app-graph")
    var products: [String]
    var traits: [String]?

    /// The packages `swift package resolve` pinned, by identity, Stash itself left out.
    func resolve() throws -> Set<String> {
        let stash = folder.file("stash")
        try snapshot(into: stash)
        let app = folder.file("app")
        let sources = app.appendingPathComponent("Sources/App")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try Data("print(\"app\")\n".utf8).write(to: sources.appendingPathComponent("main.swift"))
        let traitList = traits.map { ", traits: [\($0.map { "\"\($0)\"" }.joined(separator: ", "))]" } ?? ""
        let dependencies = products.map { ".product(name: \"\($0)\", package: \"stash\")" }.joined(separator: ", ")
        let manifest = """
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(
                name: "App",
                platforms: [.macOS(.v14), .iOS(.v17)],
                dependencies: [.package(url: "\(stash.absoluteString)", from: "1.0.0"\(traitList))],
                targets: [.executableTarget(name: "App", dependencies: [\(dependencies)])]
            )
            """
        try Data(manifest.utf8).write(to: app.appendingPathComponent("Package.swift"))
        try run(["swift", "package", "--package-path", app.path, "--scratch-path", folder.file("scratch").path, "resolve"])
        let resolved = try JSONSerialization.jsonObject(with: Data(contentsOf: app.appendingPathComponent("Package.resolved"))) as? [String: Any]
        let pins = resolved?["pins"] as? [[String: Any]] ?? []
        return Set(pins.compactMap { $0["identity"] as? String }).subtracting(["stash"])
    }

    /// The checkout's working tree (what git does not ignore), committed to a repository of
    /// its own and tagged 1.0.0, so that SwiftPM fetches it by URL as it fetches a release.
    private func snapshot(into repository: URL) throws {
        let root = DocumentedExample.packageRoot.path
        let git = ["git", "--git-dir", repository.appendingPathComponent(".git").path, "--work-tree", root]
        try run(["git", "init", "--quiet", repository.path])
        try run(git + ["add", "--all"])
        try run(git + ["-c", "user.name=Stash tests", "-c", "user.email=tests@stash.invalid", "commit", "--quiet", "--no-verify", "-m", "snapshot"])
        try run(git + ["tag", "1.0.0"])
    }

    private func run(_ arguments: [String]) throws {
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/env"), arguments)
        _ = child.readAllLines()
        let status = child.wait()
        guard status == 0 else {
            throw PackageTargets.DumpFailure(description: "\(arguments.joined(separator: " ")) exited with \(status): \(child.standardError())")
        }
    }
}
