import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

/// Values written part by part into the cache's folder and adopted with one rename.
struct DiskCacheIncomingFileTests {
    @Test func anAdoptedFileIsAFileBackedValueThatSurvivesAReopen() async throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        let incoming = try cache.makeIncomingFile()
        let handle = try FileHandle(forWritingTo: incoming)
        try handle.write(contentsOf: Data.filled(1, 100))
        try handle.write(contentsOf: Data.filled(2, 50))
        try handle.close()
        try cache.set(.filled(9, 30_000), forKey: "movie.mp4")
        try cache.adoptFile(at: incoming, forKey: "movie.mp4")
        let expected = Data.filled(1, 100) + Data.filled(2, 50)
        #expect(cache.data(forKey: "movie.mp4") == expected)
        #expect(cache.info(forKey: "movie.mp4")?.storage == .file)
        #expect(!FileManager.default.fileExists(atPath: incoming.path))
        try cache.close()
        let reopened = try fixture.open()
        #expect(reopened.data(forKey: "movie.mp4") == expected)
        let url = try #require(reopened.fileURL(for: "movie.mp4"))
        #expect(try FileStore.read(url) == expected)
        try reopened.close()
    }

    /// A file that is not the cache's own is refused and left where it is (a mistaken call
    /// must not delete a user's document).
    @Test func aFileFromElsewhereIsRefusedAndKept() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        let folder = TemporaryFolder("incoming-elsewhere")
        let outside = folder.file("value")
        try Data.filled(3, 10).write(to: outside)
        #expect {
            try cache.adoptFile(at: outside, forKey: "k")
        } throws: { ($0 as? StashError)?.code == .unsupportedValue }
        #expect(cache.data(forKey: "k") == nil)
        #expect(try FileStore.read(outside) == Data.filled(3, 10))
        try cache.close()
    }

    /// An incoming file never adopted (its writer was killed) is deleted when the cache
    /// next opens; no entry refers to it.
    @Test func anIncomingFileLeftBehindIsDeletedAtTheNextOpen() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        let incoming = try cache.makeIncomingFile()
        try Data.filled(4, 1000).write(to: incoming)
        try cache.close()
        let reopened = try fixture.open()
        #expect(!FileManager.default.fileExists(atPath: incoming.path))
        #expect(try reopened.entries().isEmpty)
        try reopened.close()
    }

    /// Like a file-backed `set`, an incoming file makes the files folder again when someone
    /// deleted it under the running cache, and a closed cache makes none.
    @Test func anIncomingFileRecreatesADeletedFilesFolderAndAClosedCacheMakesNone() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try FileManager.default.removeItem(at: fixture.directory.appendingPathComponent("files"))
        let incoming = try cache.makeIncomingFile()
        #expect(incoming.lastPathComponent.hasPrefix(".incoming."))
        try Data.filled(7, 64).write(to: incoming)
        try cache.adoptFile(at: incoming, forKey: "k")
        #expect(cache.data(forKey: "k") == .filled(7, 64))
        try cache.close()
        expectError(.closed) { _ = try cache.makeIncomingFile() }
    }

    /// `adopt(_:size:forKey:)` takes an incoming file its caller made and measured: no path
    /// check, no `stat`; a refused key deletes the file once and keeps the previous value.
    @Test func anIncomingFileMadeHereIsAdoptedWithTheSizeItsWriterKnows() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        try cache.set(.filled(1, 30_000), forKey: "movie")
        let (refused, refusedFD) = try cache.openIncomingFile()
        try FileStore.writeAll(refusedFD, .filled(2, 30_000), path: refused.temporaryPath)
        SystemCalls.close(refusedFD)
        expectError(.invalidKey) { try cache.adopt(refused, size: 30_000, forKey: "bad\u{0}key") }
        #expect(!FileManager.default.fileExists(atPath: refused.temporaryPath))
        #expect(cache.data(forKey: "movie") == .filled(1, 30_000))

        let (file, fd) = try cache.openIncomingFile()
        try FileStore.writeAll(fd, .filled(3, 40_000), path: file.temporaryPath)
        SystemCalls.close(fd)
        try cache.adopt(file, size: 40_000, forKey: "movie")
        #expect(cache.data(forKey: "movie") == .filled(3, 40_000))
        #expect(cache.info(forKey: "movie")?.size == 40_000)
        #expect(!FileManager.default.fileExists(atPath: file.temporaryPath))
        try cache.close()
    }

    /// An incoming file has no key and no final name yet: its errors name neither a key
    /// nor a made-up path, but the files folder (or the cache's folder).
    @Test func incomingFileErrorsNameNoPlaceholder() throws {
        let fixture = DiskCacheFixture()
        let cache = try fixture.open()
        let files = fixture.directory.appendingPathComponent("files")
        try FileManager.default.removeItem(at: files)
        try Data("not a folder".utf8).write(to: files)
        do {
            _ = try cache.makeIncomingFile()
            Issue.record("an incoming file was made in a files folder that is a file")
        } catch let error as StashError {
            #expect(error.key == nil)
            #expect(error.path == files.path || error.path == fixture.directory.path, "\(error)")
        }
        try FileManager.default.removeItem(at: files)
        try cache.close()
        do {
            _ = try cache.makeIncomingFile()
            Issue.record("a closed cache made an incoming file")
        } catch let error as StashError {
            #expect(error.code == .closed)
            #expect(error.key == nil)
        }
    }
}
