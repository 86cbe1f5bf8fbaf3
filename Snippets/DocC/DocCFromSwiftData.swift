import Foundation
import Observation
import StashObjectsMacros

@Model
struct Trip {
    var id: Int64?
    var name: String
    var start: Date
    static let stops = ToMany<Trip, Stop>("stops", inverse: "trip")
    static let entity = ObjectEntity<Trip>(table: "trip").relationships(stops)
}

@Model
struct Stop {
    var id: Int64?
    var city: String
    var tripID: Int64?
    static let trip = ToOne<Stop, Trip>("trip", key: \.tripID, inverse: "stops", onDelete: .cascade)
    static let entity = ObjectEntity<Stop>(table: "stop").relationships(trip)
}

// ModelContainer(for: Trip.self, Stop.self) and its mainContext.
let store = try ObjectStore("trips", sandbox: .main, schema: ObjectSchema(Trip.self, Stop.self))
let context = ObjectContext(store: store)

// context.insert(trip); trip.stops.append(stop)
let trip = context.insert(Trip(id: nil, name: "Alps", start: Date()))
try context.link(trip.stops, context.insert(Stop(id: nil, city: "Zürich")))
try context.link(trip.stops, context.insert(Stop(id: nil, city: "Chur")))
try context.save()

// FetchDescriptor(predicate: #Predicate { $0.name.contains("Al") }, sortBy: [SortDescriptor(\.start)])
let trips = try context.fetch(Trip.query().filter(.contains(\.name, "Al")).sorted(\.start))
let stops = try context.fetch(trips[0].stops.sorted(\.city))

// @Query in a view: a LiveQuery the view observes (Observation), updated after each change.
@Observable @MainActor final class TripList {
    let trips: LiveQuery<Trip>
    init(store: ObjectStore) { trips = LiveQuery(Trip.query().sorted(\.start), in: store) }
}

// context.delete(trip): the cascade rule removes its stops.
context.delete(trips[0])
try context.save()
// snippet.hide
print("stops \(stops.map(\.city)) left \(try store.count(Stop.query()))")
