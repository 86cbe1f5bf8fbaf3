import Foundation
import StashCore
import StashTestSupport
import Testing

/// `FileStore.StagedFile` written part by part, committed or discarded, and the
/// `SystemCalls` that read it back at an offset.
struct FileStoreStagedFileTests {
    @Test func aFileWrittenPartByPartIsCommittedWhole() throws {
        let folder = TemporaryFolder("staged")
        let url = folder.file("movie")
        try FileStore.write(Data("old".utf8), to: url)
        let (file, fd) = try FileStore.StagedFile.create(for: url, durability: .processSafe)
        for part in ["one ", "two ", "three"] { try FileStore.writeAll(fd, Data(part.utf8), path: url.path) }
        #expect(SystemCalls.close(fd) == 0)
        #expect(try FileStore.read(url) == Data("old".utf8), "readers see the old content until the commit")
        try file.commit()
        #expect(try FileStore.read(url) == Data("one two three".utf8))
        #expect(!FileManager.default.fileExists(atPath: file.temporaryPath))

        let reader = SystemCalls.open(url.path, O_RDONLY | O_CLOEXEC)
        #expect(reader >= 0)
        var bytes = [UInt8](repeating: 0, count: 3)
        #expect(bytes.withUnsafeMutableBytes { SystemCalls.pread(reader, $0.baseAddress!, 3, at: 4) } == 3)
        #expect(String(decoding: bytes, as: UTF8.self) == "two")
        #expect(bytes.withUnsafeMutableBytes { SystemCalls.pread(reader, $0.baseAddress!, 3, at: 13) } == 0)
        SystemCalls.close(reader)
        #expect(SystemCalls.open(folder.file("absent").path, O_RDONLY) == -1)
    }

    @Test func aDiscardedFileLeavesNothingAndTheOldContent() throws {
        let folder = TemporaryFolder("staged")
        let url = folder.file("value")
        try FileStore.write(Data("kept".utf8), to: url)
        let (file, fd) = try FileStore.StagedFile.create(for: url, durability: .processSafe)
        try FileStore.writeAll(fd, Data("never".utf8), path: url.path)
        SystemCalls.close(fd)
        file.discard()
        #expect(try FileStore.list(folder.url) == ["value"])
        #expect(try FileStore.read(url) == Data("kept".utf8))
    }

    @Test func aMissingFolderIsNotFound() throws {
        let folder = TemporaryFolder("staged")
        #expect(throws: StashError.self) { try FileStore.StagedFile.create(for: folder.file("no/such/file"), durability: .processSafe) }
        do {
            _ = try FileStore.StagedFile.create(for: folder.file("no/such/file"), durability: .processSafe)
        } catch let error as StashError {
            #expect(error.code == .notFound)
        }
    }
}
