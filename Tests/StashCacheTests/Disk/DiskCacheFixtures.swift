import Foundation
import GRDB
import StashCache
import StashCore
import StashTestSupport
import Testing

/// Opens disk caches in a test's temporary folder, silently, with a manual clock.
struct DiskCacheFixture {
    let folder = TemporaryFolder("diskcache")
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_000_000))

    var directory: URL { folder.url.appendingPathComponent("cache", isDirectory: true) }

    func configuration(_ configure: (inout DiskCache.Configuration) -> Void = { _ in }) -> DiskCache.Configuration {
        var configuration = DiskCache.Configuration()
        configuration.clock = clock
        configure(&configuration)
        return configuration
    }

    func open(_ configure: (inout DiskCache.Configuration) -> Void = { _ in }) throws -> DiskCache {
        try DiskCache(directory: directory, configuration: configuration(configure))
    }
}

/// What the manifest and the files folder say, read with GRDB and the file system only.
struct ManifestInspection {
    /// Rows naming a file, by file name.
    var fileRows: [String: Int] = [:]
    var inlineRows = 0
    /// Files in `files/`, with their sizes.
    var files: [String: Int] = [:]

    init(directory: URL) throws {
        let database = try DatabaseQueue(path: directory.appendingPathComponent("manifest.sqlite").path)
        try database.read { db in
            for row in try Row.fetchAll(db, sql: "SELECT file, size FROM entry") {
                if let file: String = row["file"] { fileRows[file] = row["size"] } else { inlineRows += 1 }
            }
        }
        try database.close()
        let filesFolder = directory.appendingPathComponent("files")
        for name in try FileManager.default.contentsOfDirectory(atPath: filesFolder.path) {
            files[name] = Int(try FileStore.size(of: filesFolder.appendingPathComponent(name)))
        }
    }

    /// Rows whose file does not exist.
    var rowsWithoutFile: [String] { fileRows.keys.filter { files[$0] == nil }.sorted() }
    /// Files no row names (temporary files included).
    var orphanFiles: [String] { files.keys.filter { fileRows[$0] == nil }.sorted() }
}

extension Data {
    static func filled(_ byte: UInt8, _ count: Int) -> Data { Data(repeating: byte, count: count) }
}

/// Expects `body` to throw a ``StashError`` with `code`.
func expectError(_ code: StashError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected a '\(code)' error, nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? StashError)?.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}

/// Expects the async `body` to throw a ``StashError`` with `code`.
func expectError(_ code: StashError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected a '\(code)' error, nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? StashError)?.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}
