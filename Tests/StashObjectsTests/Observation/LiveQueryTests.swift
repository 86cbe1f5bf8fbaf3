import Foundation
import Observation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// `LiveQuery`: tracked by `withObservationTracking`, updated by commits from another task,
/// another store on the file and another process.
struct LiveQueryTests {
    @Test(.timeLimit(.minutes(1))) func itLoadsThenFollowsAnotherTasksCommits() async throws {
        let folder = TemporaryFolder("objects-live")
        let store = try folder.objectStore(graphSchema)
        try await store.write { tx in _ = try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        let live = LiveQuery(Person.query().filter(\.age >= 18).sorted(\.name), in: store)
        #expect(await eventually { !live.isLoading })
        #expect(live.objects.map(\.name) == ["Ada"])
        let firings = ObservationFirings { _ = live.objects }
        try await Task.detached { try store.write { tx in _ = try tx.insert(Person(id: nil, name: "Grace", age: 85)) } }.value
        #expect(await eventually { firings.count > 0 })
        #expect(await eventually { live.count == 2 })
        #expect(live.objects.map(\.name) == ["Ada", "Grace"])
        #expect(live.error == nil)
    }

    /// The property-wrapper form in an `@Observable` model, fed by another store on the file.
    @Test(.timeLimit(.minutes(1))) func theWrapperFollowsAnotherStore() async throws {
        let folder = TemporaryFolder("objects-live-wrapper")
        let store = try folder.objectStore(graphSchema)
        let other = try folder.objectStore(graphSchema)
        let model = PeopleModel(store: store)
        #expect(await eventually { !model.$people.isLoading })
        #expect(model.people.isEmpty)
        let firings = ObservationFirings { _ = model.people }
        try await other.write { tx in _ = try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        #expect(await eventually { firings.count > 0 && model.people.count == 1 })
    }
}

@Observable private final class PeopleModel {
    @ObservationIgnored @LiveQuery<Person> var people: [Person]
    init(store: ObjectStore) {
        _people = LiveQuery(Person.query().sorted(\.name), in: store)
    }
}
