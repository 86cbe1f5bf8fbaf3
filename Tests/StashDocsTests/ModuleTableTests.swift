import Testing

/// The module tables of README.md (the library products) and docs/ARCHITECTURE.md (every
/// target but the tests) name each module's direct dependencies as Package.swift does, so
/// that the written map of the package cannot drift from the manifest.
struct ModuleTableTests {
    @Test func theReadmeListsEveryLibraryWithItsDependencies() throws {
        let package = try PackageTargets.current.get()
        let expected = Dictionary(uniqueKeysWithValues: package.targets.filter { package.libraryTargets.contains($0.name) }.map { ($0.name, $0.dependencies) })
        #expect(expected.count >= 10, "the manifest's library products: \(expected.keys.sorted())")
        let table = try ModuleTable(document: "README.md")
        for difference in table.differences(from: expected) { Issue.record(Comment(rawValue: difference)) }
    }

    @Test func theArchitectureListsEveryTargetWithItsDependencies() throws {
        let package = try PackageTargets.current.get()
        let expected = Dictionary(uniqueKeysWithValues: package.targets.filter { $0.type != "test" }.map { ($0.name, $0.dependencies) })
        let table = try ModuleTable(document: "docs/ARCHITECTURE.md")
        for difference in table.differences(from: expected) { Issue.record(Comment(rawValue: difference)) }
    }

    @Test func aCellNamesModulesAndPackagesButNotItsNotes() {
        #expect(ModuleTable.dependencies("StashHTTP, swift-nio (NIOCore, NIOHTTP1), `hummingbird`") == ["StashHTTP", "swift-nio", "hummingbird"])
        #expect(ModuleTable.dependencies("— (Foundation only)").isEmpty)
        #expect(ModuleTable.isHeader("| module | depends on | what it is for |"))
    }
}
