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

    /// A power-safe file written part by part is fsynced through its own descriptor by its
    /// writer (`syncContent`, outside any lock), and `commit()` only renames it (and fsyncs
    /// the folder): a temporary file gone by the commit fails the rename, naming the
    /// destination, and the old content stays. An fsync that fails names the destination.
    @Test func aPowerSafeFileWrittenPartByPartIsSyncedByItsWriter() throws {
        let folder = TemporaryFolder("staged")
        let url = folder.file("movie")
        try FileStore.write(Data("old".utf8), to: url)
        let (file, fd) = try FileStore.StagedFile.create(for: url, durability: .powerSafe)
        try FileStore.writeAll(fd, Data("new".utf8), path: url.path)
        try FileStore.syncContent(fd, path: url.path)
        SystemCalls.close(fd)
        try file.commit()
        #expect(try FileStore.read(url) == Data("new".utf8))

        let (lost, lostFD) = try FileStore.StagedFile.create(for: url, durability: .powerSafe)
        SystemCalls.close(lostFD)
        unlink(lost.temporaryPath)
        do {
            try lost.commit()
            Issue.record("a commit without its temporary file succeeded")
        } catch let error as StashError {
            #expect(error.code == .notFound)
            #expect(error.path == url.path)
            #expect(error.reason.hasPrefix("rename"))
        }
        let adopted = FileStore.StagedFile(temporaryPath: folder.file(".absent.tmp").path, for: url, durability: .powerSafe)
        #expect(throws: StashError.self) { try adopted.commit() }
        #expect(try FileStore.read(url) == Data("new".utf8))
        do {
            try FileStore.syncContent(-1, path: url.path)
            Issue.record("an fsync of no file succeeded")
        } catch let error as StashError {
            #expect(error.path == url.path)
        }
    }

    /// `read(descriptor:range:)` reads a range into one buffer, and as far as the file goes.
    @Test func aRangeOfAnOpenFileIsReadAsFarAsTheFileGoes() throws {
        let folder = TemporaryFolder("staged")
        let url = folder.file("value")
        let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try FileStore.write(content, to: url, durability: .processSafe)
        let fd = SystemCalls.open(url.path, O_RDONLY | O_CLOEXEC)
        defer { SystemCalls.close(fd) }
        #expect(try FileStore.read(descriptor: fd, range: 0..<200_000) == content)
        #expect(try FileStore.read(descriptor: fd, range: 70_000..<70_010) == content.subdata(in: 70_000..<70_010))
        #expect(try FileStore.read(descriptor: fd, range: 199_990..<300_000) == content.suffix(10))
        #expect(try FileStore.read(descriptor: fd, range: 250_000..<250_001).isEmpty)
        #expect(try FileStore.read(descriptor: fd, range: 5..<5).isEmpty)
        #expect(throws: StashError.self) { try FileStore.read(descriptor: -1, range: 0..<10, path: url.path) }
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
            #expect(error.path == folder.file("no/such/file").path)
        }
        do {
            _ = try FileStore.StagedFile.create(for: folder.file("no/such/file"), naming: folder.url.path, durability: .processSafe)
            Issue.record("a file was made in a missing folder")
        } catch let error as StashError {
            #expect(error.path == folder.url.path, "the error does not name what the caller asked")
        }
    }
}
