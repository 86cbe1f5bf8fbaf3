import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Columns of every supported kind survive a write, a close and a reopen; bad stored values
/// are typed errors naming model and attribute.
struct ModelColumnsTests {
    @Test func everyKindOfAttributeRoundTripsAcrossReopen() throws {
        let folder = TemporaryFolder("objects-columns")
        let samples = try folder.writeRandomSamples("ModelColumnsTests")
        let store = try folder.objectStore(ObjectSchema(Sample.self))
        for sample in samples {
            let read = try #require(try store.object(Sample.self, id: sample.id))
            #expect(read == sample)
        }
        // The excluded attribute has no column; the others have the documented types.
        let columns = try folder.rawDatabase().read { db in try db.columns(in: "sample") }
        let types = Dictionary(uniqueKeysWithValues: columns.map { ($0.name, $0.type) })
        #expect(types["scratch"] == nil)
        #expect(types["int"] == "INTEGER" && types["double"] == "REAL" && types["text"] == "TEXT")
        #expect(types["data"] == "BLOB" && types["date"] == "REAL" && types["address"] == "TEXT")
        #expect(columns.first { $0.name == "optionalText" }?.isNotNull == false)
        #expect(columns.first { $0.name == "text" }?.isNotNull == true)
    }

    @Test func textInAnIntegerColumnIsATypedErrorNamingTheAttribute() throws {
        let folder = TemporaryFolder("objects-mismatch")
        let store = try folder.objectStore(ObjectSchema(Person.self))
        try store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
        // Another program writes text where the model expects an integer.
        try folder.rawDatabase().write { db in try db.execute(sql: "UPDATE person SET age = 'old'") }
        #expect {
            try store.fetch(Person.query())
        } throws: { error in
            let error = try #require(error as? StashError)
            return error.code == .typeMismatch && error.key == "Person.age" && error.reason.contains("'old'")
        }
    }

    @Test func jsonThatNoLongerDecodesIsATypedError() throws {
        let folder = TemporaryFolder("objects-json")
        var generator = SeededGenerator(seed: 7)
        let sample = Sample.random(&generator, optionals: false)
        let store = try folder.objectStore(ObjectSchema(Sample.self))
        try store.write { tx in try tx.insert(sample) }
        try folder.rawDatabase().write { db in try db.execute(sql: "UPDATE sample SET address = '{\"street\": 3}'") }
        #expect {
            try store.object(Sample.self, id: sample.id)
        } throws: { error in
            (error as? StashError)?.code == .typeMismatch && (error as? StashError)?.key == "Sample.address"
        }
        // An enum raw value that the model does not know.
        try folder.rawDatabase().write { db in try db.execute(sql: "UPDATE sample SET address = '{\"street\":\"x\",\"tags\":[]}', mood = 'furious'") }
        #expect {
            try store.object(Sample.self, id: sample.id)
        } throws: { error in
            (error as? StashError)?.code == .typeMismatch && (error as? StashError)?.key == "Sample.mood"
        }
    }

    @Test func anUnstoredAttributeInAQueryIsATypedError() throws {
        let folder = TemporaryFolder("objects-unstored")
        let store = try folder.objectStore(ObjectSchema(Sample.self))
        #expect(errorCode { try store.fetch(Sample.query().filter(\.scratch == 1)) } == .unknownAttribute)
        #expect(errorCode { try store.fetch(Sample.query().sorted(\.scratch)) } == .unknownAttribute)
        #expect(errorCode { try store.fetch(Person.query()) } == .unknownModel)
    }

    @Test func nanIsRefusedAndNothingIsWritten() throws {
        let folder = TemporaryFolder("objects-nan")
        var generator = SeededGenerator(seed: 11)
        var sample = Sample.random(&generator, optionals: false)
        sample.double = .nan
        let store = try folder.objectStore(ObjectSchema(Sample.self))
        #expect {
            try store.write { tx in try tx.insert(sample) }
        } throws: { error in
            (error as? StashError)?.code == .unsupportedValue && (error as? StashError)?.key == "Sample.double"
        }
        #expect(try store.count(Sample.query()) == 0)
    }
}
