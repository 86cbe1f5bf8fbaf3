import Observation
import StashObjects

struct Person: Model, Equatable {
    var id: Int64?
    var name: String
    var age: Int
}

let store = try ObjectStore("people", sandbox: .main, schema: ObjectSchema(Person.self))

@Observable final class PeopleModel {
    var title = "People"
    // The wrappers are what is tracked: a view reading `adults` or `ada` follows the store.
    @ObservationIgnored @LiveQuery(Person.query().filter(\.age >= 18).sorted(\.name), in: store) var adults
    @ObservationIgnored @LiveObject(Person.self, id: 1, in: store) var ada
}

let model = PeopleModel()
// snippet.hide
while model.$ada.isLoading || model.$adults.isLoading { try await Task.sleep(for: .milliseconds(5)) }
// snippet.show
withObservationTracking {
    print("Ada: \(model.ada?.name ?? "none")")     // `$ada.isLoading` until the first fetch
} onChange: {
    print("Ada changed")
}
try store.write { tx in _ = try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
// snippet.hide
while model.ada == nil || model.adults.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
print("adults \(model.adults.count) ada \(model.ada?.age ?? 0)")
