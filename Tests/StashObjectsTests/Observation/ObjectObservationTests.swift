import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Observers see commits made by other tasks; unrelated commits do not wake them.
struct ObjectObservationTests {
    @Test func anObserverSeesACommitFromAnotherTaskAndNotAnUnrelatedOne() async throws {
        let folder = TemporaryFolder("objects-observe")
        let store = try folder.objectStore(graphSchema)
        let ada = try await store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        var iterator = store.observe(Person.query().filter(\.age > 20).sorted(\.name)).makeAsyncIterator()
        #expect(try await iterator.next()?.map(\.name) == ["Ada"])

        // Unrelated commits: another model's table, and a change that leaves the results
        // identical (a person outside the filter).
        try await Task.detached {
            try store.write { tx in
                try tx.insert(Club(id: "chess", title: "Chess"))
                try tx.insert(Person(id: nil, name: "Kid", age: 5))
            }
        }.value
        // A related commit from another task.
        _ = try await Task.detached {
            try store.write { tx in try tx.insert(Person(id: nil, name: "Grace", age: 85)) }
        }.value
        // The next value is the related commit's: nothing was yielded for the others.
        #expect(try await iterator.next()?.map(\.name) == ["Ada", "Grace"])

        var one = store.observe(Person.self, id: ada.id).makeAsyncIterator()
        #expect(try await one.next()??.age == 36)
        try await store.write { tx in try tx.delete(Person.self, id: ada.id) }
        #expect(try await one.next() == .some(nil))
    }
}
