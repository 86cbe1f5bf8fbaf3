import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// The store's cross-process signal (Darwin notifications on Apple platforms), through the
/// fake notification center: each committed write transaction posts it, a rolled-back one
/// does not, and an observation listens while it runs.
struct ChangeSignalWiringTests {
    let folder = TemporaryFolder("objects-signal")
    let fake = FakeChangeNotifier()

    func open() throws -> ObjectStore {
        try ChangeNotifier.$current.withValue(fake.notifier) { try folder.objectStore(graphSchema) }
    }

    struct Refused: Error {}

    @Test func eachCommittedWritePosts() throws {
        let store = try open()
        let name = ChangeSignal.name(for: store.url)
        try store.write { tx in _ = try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        #expect(fake.posts(of: name) == 1)
        #expect(throws: Refused.self) {
            try store.write { tx in
                _ = try tx.insert(Person(id: nil, name: "Alan", age: 41))
                throw Refused()
            }
        }
        #expect(fake.posts(of: name) == 1)
    }

    @Test func eachCommittedWriteFromATaskPosts() async throws {
        let store = try open()
        let name = ChangeSignal.name(for: store.url)
        try await store.write { tx in _ = try tx.insert(Person(id: nil, name: "Grace", age: 85)) }
        #expect(fake.posts(of: name) == 1)
    }

    @Test(.timeLimit(.minutes(1))) func anObservationListensWhileItRunsAndWakesOnAPost() async throws {
        let watching = try open()
        let writer = try open()
        let name = ChangeSignal.name(for: watching.url)
        do {
            var iterator = watching.observe(Person.query().sorted(\.name)).makeAsyncIterator()
            #expect(try await iterator.next()?.map(\.name) == [])
            #expect(fake.registrations(of: name) == 1)
            try await writer.write { tx in _ = try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
            #expect(try await iterator.next()?.map(\.name) == ["Ada"])
        }
        #expect(fake.registrations(of: name) == 0)
    }
}
