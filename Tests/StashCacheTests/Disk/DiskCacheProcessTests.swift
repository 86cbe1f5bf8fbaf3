import Foundation
import StashCache
import StashCore
import StashTestSupport
import Testing

@Suite(.timeLimit(.minutes(2)))
struct DiskCacheProcessTests {
    @Test func onlyOneWriterAtATimeAndOthersGetAReadOnlyView() async throws {
        let fixture = DiskCacheFixture()
        let child = try ChildProcess.testHost("cache.hold-writer", fixture.directory.path)
        defer {
            child.kill()
            child.wait()
        }
        #expect(child.readLine() == "ready")

        expectError(.locked) { _ = try fixture.open() }

        let view = try fixture.open { $0.access = .readOnly }
        #expect(view.isReadOnly)
        #expect(view.data(forKey: "from-child") == Data("from-child".utf8))
        #expect(view.count == 1)
        expectError(.readOnly) { try view.set(Data(), forKey: "mine") }
        await expectError(.readOnly) { _ = try await view.trim() }

        child.kill()
        child.wait()
        let writer = try fixture.open()
        #expect(writer.data(forKey: "from-child") == Data("from-child".utf8))
        try writer.set(Data("parent".utf8), forKey: "parent")
        try await writer.flush()
        #expect(view.data(forKey: "parent") == Data("parent".utf8))
    }

    @Test func aSecondWriterInTheSameProcessIsRefusedUntilTheFirstCloses() throws {
        let fixture = DiskCacheFixture()
        let first = try fixture.open()
        expectError(.locked) { _ = try fixture.open() }
        try first.close()
        _ = try fixture.open()
    }

    @Test func aReadOnlyViewOfNothingIsNotFound() {
        let fixture = DiskCacheFixture()
        expectError(.notFound) { _ = try fixture.open { $0.access = .readOnly } }
    }
}
