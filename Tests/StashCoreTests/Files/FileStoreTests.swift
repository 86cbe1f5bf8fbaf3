import Foundation
import StashCore
import StashTestSupport
import Testing

struct FileStoreTests {
    @Test func writeReadExistsMoveDelete() throws {
        let folder = TemporaryFolder("files")
        let url = folder.file("a.txt")
        #expect(!FileStore.exists(url))
        #expect(throws: StashError.self) { try FileStore.read(url) }
        try FileStore.write(Data("one".utf8), to: url)
        try FileStore.write(Data("two".utf8), to: url)
        #expect(try FileStore.read(url) == Data("two".utf8))
        #expect(try FileStore.size(of: url) == 3)
        let moved = folder.file("b.txt")
        try FileStore.move(url, to: moved)
        #expect(!FileStore.exists(url) && FileStore.exists(moved))
        #expect(try FileStore.list(folder.url) == ["b.txt"])
        try FileStore.delete(moved)
        try FileStore.delete(moved)
        #expect(try FileStore.list(folder.url).isEmpty)
    }

    @Test func newFilesAndFoldersAreOwnerOnly() throws {
        let folder = TemporaryFolder("files")
        let nested = folder.url.appendingPathComponent("x/y/z", isDirectory: true)
        try FileStore.createFolder(nested)
        #expect(try Self.mode(nested) == 0o700)
        let file = nested.appendingPathComponent("f")
        try FileStore.write(Data([1]), to: file)
        #expect(try Self.mode(file) == 0o600)
    }

    @Test func aFailedWriteKeepsThePreviousContent() throws {
        let folder = TemporaryFolder("files")
        let url = folder.file("keep.txt")
        try FileStore.write(Data("old".utf8), to: url)
        // A write into a missing folder fails; a write whose rename target is a folder fails.
        #expect(throws: StashError.self) { try FileStore.write(Data("x".utf8), to: folder.file("missing/f")) }
        try FileStore.createFolder(folder.file("dir"))
        #expect(throws: StashError.self) { try FileStore.write(Data("x".utf8), to: folder.file("dir")) }
        #expect(try FileStore.read(url) == Data("old".utf8))
        #expect(try FileStore.list(folder.url).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test func allocatedSizeCountsTheTree() throws {
        let folder = TemporaryFolder("files")
        try FileStore.createFolder(folder.file("sub"))
        try FileStore.write(Data(count: 100_000), to: folder.file("sub/big"))
        let size = try FileStore.allocatedSize(ofFolder: folder.url)
        #expect(size >= 100_000)
        #expect(try FileStore.allocatedSize(ofFolder: folder.file("missing")) == 0)
    }

    static func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1) & 0o777
    }
}
