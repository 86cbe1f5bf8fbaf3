import Foundation
import StashCore
import StashTestSupport
import Testing

/// Atomic writes on a real full disk (a 2 MB tmpfs; root only, skipped with a message
/// otherwise): the error names the destination, never the hidden temporary file, and the
/// previous content and the folder are left as they were.
struct FileStoreFullDiskTests {
    @Test(arguments: [FileStore.Durability.powerSafe, .processSafe])
    func diskFullNamesTheDestinationAndKeepsThePreviousContent(durability: FileStore.Durability) throws {
        guard let volume = try SmallVolume.forTest(megabytes: 2) else { try Test.cancel(Comment(rawValue: SmallVolume.unavailable)) }
        let url = volume.url.appendingPathComponent("settings.json")
        try FileStore.write(Data("previous".utf8), to: url, durability: durability)
        do {
            try FileStore.write(Data(count: 3 * 1024 * 1024), to: url, durability: durability)
            Issue.record("a 3 MB write on a 2 MB volume returned")
        } catch let error as StashError {
            #expect(error.code == .diskFull, "\(error)")
            #expect(error.path == url.path, "\(error)")
            #expect(!"\(error)".contains(".tmp"), "\(error)")
        }
        #expect(try FileStore.read(url) == Data("previous".utf8))
        #expect(try FileStore.list(volume.url) == ["settings.json"])
    }
}
