import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Observations see the commits of another store on the same file and of another process,
/// which GRDB's own observation never hears of (`ExternalCommitWatch`).
struct ExternalCommitTests {
    // Without the watch, `next()` waits forever: the time limit fails it.
    @Test(.timeLimit(.minutes(1))) func anObserverSeesAnotherStoresCommits() async throws {
        let folder = TemporaryFolder("objects-external")
        let watching = try folder.objectStore(graphSchema)
        let other = try folder.objectStore(graphSchema)
        var iterator = watching.observe(Person.query().sorted(\.name)).makeAsyncIterator()
        #expect(try await iterator.next()?.map(\.name) == [])
        try await other.write { tx in _ = try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        #expect(try await iterator.next()?.map(\.name) == ["Ada"])
        try await other.write { tx in _ = try tx.insert(Person(id: nil, name: "Grace", age: 85)) }
        #expect(try await iterator.next()?.map(\.name) == ["Ada", "Grace"])
    }

    @Test(.timeLimit(.minutes(1))) func anObserverSeesAnotherProcessesCommits() async throws {
        let folder = TemporaryFolder("objects-external-process")
        let file = folder.file("objects.sqlite")
        let store = try ObjectStore(url: file, schema: ObjectSchema(HostEntry.self))
        var iterator = store.observe(HostEntry.query().filter(\.writer == "child")).makeAsyncIterator()
        #expect(try await iterator.next()?.count == 0)
        let barrier = StartBarrier(in: folder)
        let child = try ChildProcess.testHost("objects.write-range", file.path, "child", "1", barrier.path)
        #expect(child.readLine() == "ready")
        try barrier.release()
        #expect(child.readLine()?.hasPrefix("written") == true)
        #expect(child.wait() == 0)
        // HostEntry is not Equatable: a fetch that finds nothing new yields again; the time
        // limit fails the test if the child's entry never comes.
        while let entries = try await iterator.next(), entries.count < 1 {}
    }
}

