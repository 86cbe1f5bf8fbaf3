import Foundation
import Observation
import StashCore
import StashTestSupport
import Testing
@testable import StashObjects

/// `LiveObject`: one object by id, tracked by `withObservationTracking`, updated by commits
/// from another task, another store on the file and another process.
struct LiveObjectTests {
    @Test func itLoadsThenFollowsInsertUpdateAndDeleteFromAnotherTask() async throws {
        let folder = TemporaryFolder("objects-live-object")
        let store = try folder.objectStore(graphSchema)
        let ada = LiveObject(Person.self, id: 1, in: store)
        #expect(await eventually { !ada.isLoading })
        #expect(ada.object == nil, "no object has the id yet")

        let inserted = ObservationFirings { _ = ada.object }
        try await Task.detached { try store.write { tx in _ = try tx.insert(Person(id: nil, name: "Ada", age: 36)) } }.value
        #expect(await eventually { inserted.count > 0 && ada.object?.name == "Ada" })

        let updated = ObservationFirings { _ = ada.object }
        try await Task.detached { try store.write { tx in try tx.update(Person(id: 1, name: "Ada", age: 37)) } }.value
        #expect(await eventually { updated.count > 0 && ada.object?.age == 37 })

        let deleted = ObservationFirings { _ = ada.object }
        try await Task.detached { try store.write { tx in _ = try tx.delete(Person.self, id: 1) } }.value
        #expect(await eventually { deleted.count > 0 && ada.object == nil })
        #expect(ada.error == nil)
    }

    /// An `Equatable` object left as it was by a commit to its table ends no tracking: the
    /// delivery comes (counted) and is found equal.
    @Test func aCommitThatLeavesTheObjectAsItWasEndsNoTracking() async throws {
        let folder = TemporaryFolder("objects-live-object-same")
        let store = try folder.objectStore(graphSchema)
        try await store.write { tx in
            _ = try tx.insert(Person(id: nil, name: "Ada", age: 36))
            _ = try tx.insert(Person(id: nil, name: "Grace", age: 85))
        }
        let ada = LiveObject(Person.self, id: 1, in: store)
        #expect(await eventually { ada.object?.name == "Ada" })
        let before = ada.results.deliveries
        let firings = ObservationFirings { _ = ada.object }
        try await store.write { tx in try tx.update(Person(id: 2, name: "Grace", age: 86)) }
        #expect(await eventually { ada.results.deliveries > before }, "the commit to the table was delivered")
        #expect(firings.count == 0, "equal results end no tracking")
        try await store.write { tx in try tx.update(Person(id: 1, name: "Ada", age: 37)) }
        #expect(await eventually { firings.count == 1 && ada.object?.age == 37 })
    }

    /// The property-wrapper form in an `@Observable` model, fed by another store on the file.
    @Test func theWrapperFollowsAnotherStore() async throws {
        let folder = TemporaryFolder("objects-live-object-wrapper")
        let store = try folder.objectStore(graphSchema)
        let other = try folder.objectStore(graphSchema)
        let model = ProfileModel(store: store)
        #expect(await eventually { !model.$person.isLoading })
        let firings = ObservationFirings { _ = model.person }
        try await other.write { tx in _ = try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        #expect(await eventually { firings.count > 0 && model.person?.name == "Ada" })
    }

    @Test func itFollowsAnotherProcessesCommits() async throws {
        let folder = TemporaryFolder("objects-live-object-process")
        let file = folder.file("objects.sqlite")
        let store = try ObjectStore(url: file, schema: ObjectSchema(HostEntry.self))
        let entry = LiveObject(HostEntry.self, id: 1, in: store)
        #expect(await eventually { !entry.isLoading })
        let firings = ObservationFirings { _ = entry.object }
        let barrier = StartBarrier(in: folder)
        try barrier.release()  // nothing to wait for: the object is followed already
        let child = try ChildProcess.testHost("objects.write-range", file.path, "child", "1", barrier.path)
        #expect(child.readAllLines().last?.hasPrefix("written") == true)
        #expect(child.wait() == 0, "child failed: \(child.standardError())")
        #expect(await eventually { firings.count > 0 && entry.object?.writer == "child" })
    }
}

@Observable private final class ProfileModel {
    @ObservationIgnored @LiveObject<Person> var person: Person?
    init(store: ObjectStore) {
        _person = LiveObject(Person.self, id: 1, in: store)
    }
}
