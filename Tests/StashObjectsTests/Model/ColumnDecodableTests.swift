import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// ``Sample`` (every kind of attribute) read through the `ColumnDecodable` fast path; it
/// reads a few attributes out of declaration order on purpose. Its columns and writes are
/// Sample's `Codable` ones.
struct RowSample: Model, ColumnDecodable, Equatable {
    var sample: Sample
    /// Set by `init(row:)` only, to tell which path read the object.
    var readByRow = false

    static let entity = ObjectEntity<RowSample>(table: "sample")

    var id: UUID {
        get { sample.id }
        set { sample.id = newValue }
    }

    init(_ sample: Sample, readByRow: Bool = false) {
        self.sample = sample
        self.readByRow = readByRow
    }

    init(from decoder: any Decoder) throws { sample = try Sample(from: decoder) }
    func encode(to encoder: any Encoder) throws { try sample.encode(to: encoder) }

    init(row: ObjectRow) throws {
        let int: Int = try row.value("int")
        let id: UUID = try row.value("id")
        let optionalAddress: Address? = try row.value("optionalAddress")
        sample = Sample(
            id: id, int: int, int8: try row.value("int8"), int16: try row.value("int16"), int32: try row.value("int32"),
            int64: try row.value("int64"), uint: try row.value("uint"), uint8: try row.value("uint8"),
            uint16: try row.value("uint16"), uint32: try row.value("uint32"), uint64: try row.value("uint64"),
            flag: try row.value("flag"), double: try row.value("double"), float: try row.value("float"),
            text: try row.value("text"), data: try row.value("data"), date: try row.value("date"),
            uuid: try row.value("uuid"), url: try row.value("url"), mood: try row.value("mood"),
            address: try row.value("address"), optionalText: try row.value("optionalText"),
            optionalMood: try row.value("optionalMood"), optionalAddress: optionalAddress
        )
        readByRow = true
    }
}

/// A model whose `init(row:)` asks for an attribute that is not stored.
struct Misread: Model, ColumnDecodable {
    var id: Int64?
    var name: String
    var age: Int?
    static let entity = ObjectEntity<Misread>(table: "person")

    init(row: ObjectRow) throws {
        id = try row.value("id")
        name = try row.value("nmae")
        age = try row.value("age")
    }
}

/// The fast path reads what the `Codable` path wrote, with the same typed errors.
struct ColumnDecodableTests {
    @Test func everyAttributeReadsBackThroughInitRow() throws {
        let folder = TemporaryFolder("objects-row")
        let samples = try folder.writeRandomSamples("ColumnDecodableTests")
        let store = try folder.objectStore(ObjectSchema(RowSample.self))
        let expected = samples.map { RowSample($0, readByRow: true) }
        let read = try store.fetch(RowSample.query())
        #expect(read.sorted { $0.id.uuidString < $1.id.uuidString } == expected.sorted { $0.id.uuidString < $1.id.uuidString })
        #expect(try store.object(RowSample.self, id: samples[3].id) == expected[3])

        // Written by the fast-path model (through Codable), read back by it.
        var generator = SeededGenerator(seed: 5)
        var added = RowSample(Sample.random(&generator, optionals: true))
        try store.write { tx in try tx.insert(added) }
        added.readByRow = true
        #expect(try store.object(RowSample.self, id: added.id) == added)
    }

    @Test func badStoredValuesAndUnknownNamesAreTypedErrors() throws {
        let folder = TemporaryFolder("objects-row-errors")
        var generator = SeededGenerator(seed: 11)
        let sample = Sample.random(&generator, optionals: false)
        do {
            let store = try folder.objectStore(ObjectSchema(Sample.self, Person.self))
            try store.write { tx in
                try tx.insert(sample)
                try tx.insert(Person(id: nil, name: "Ada", age: 36))
            }
            try store.close()
        }
        let store = try folder.objectStore(ObjectSchema(RowSample.self, Misread.self))
        #expect {
            try store.fetch(Misread.query())
        } throws: { error in
            (error as? StashError)?.code == .unknownAttribute && (error as? StashError)?.key == "Misread.nmae"
        }
        // Another program writes text where the model expects an integer, then where it
        // expects a date.
        try folder.rawDatabase().write { db in try db.execute(sql: "UPDATE sample SET int = 'many'") }
        #expect {
            try store.fetch(RowSample.query())
        } throws: { error in
            let error = try #require(error as? StashError)
            return error.code == .typeMismatch && error.key == "RowSample.int" && error.reason.contains("'many'")
        }
        try folder.rawDatabase().write { db in try db.execute(sql: "UPDATE sample SET int = 1, date = 'soon'") }
        #expect {
            try store.object(RowSample.self, id: sample.id)
        } throws: { error in
            (error as? StashError)?.code == .typeMismatch && (error as? StashError)?.key == "RowSample.date"
        }
    }
}
