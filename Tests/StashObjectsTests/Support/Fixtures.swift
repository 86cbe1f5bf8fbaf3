import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport

/// The playbook's Core Data example: a Person with a Card.
struct Person: Model, Equatable {
    var id: Int64?
    var name: String
    var age: Int
    var nickname: String?

    static let entity = ObjectEntity<Person>(table: "person").unique(\.name).indexed(\.age)
}

enum Mood: String, Codable, Storable, CaseIterable {
    case happy, calm, grumpy
}

struct Address: Codable, Equatable, Sendable {
    var street: String
    var tags: [String]
}

/// One attribute of every supported kind.
struct Sample: Model, Equatable {
    var id: UUID
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var flag: Bool
    var double: Double
    var float: Float
    var text: String
    var data: Data
    var date: Date
    var uuid: UUID
    var url: URL
    var mood: Mood
    var address: Address
    var optionalText: String?
    var optionalMood: Mood?
    var optionalAddress: Address?
    /// Not stored: left out of CodingKeys.
    var scratch = 0

    enum CodingKeys: String, CodingKey {
        case id, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, flag, double, float, text, data, date, uuid, url, mood, address
        case optionalText, optionalMood, optionalAddress
    }

    static func random(_ generator: inout some RandomNumberGenerator, optionals: Bool) -> Sample {
        Sample(
            id: UUID(),
            int: .random(in: .min ... .max, using: &generator),
            int8: .random(in: .min ... .max, using: &generator),
            int16: .random(in: .min ... .max, using: &generator),
            int32: .random(in: .min ... .max, using: &generator),
            int64: .random(in: .min ... .max, using: &generator),
            uint: .random(in: 0 ... UInt(Int64.max), using: &generator),   // stored up to Int64.max
            uint8: .random(in: .min ... .max, using: &generator),
            uint16: .random(in: .min ... .max, using: &generator),
            uint32: .random(in: .min ... .max, using: &generator),
            uint64: .random(in: 0 ... UInt64(Int64.max), using: &generator),
            flag: .random(using: &generator),
            double: .random(in: -1e9...1e9, using: &generator),
            float: .random(in: -1e3...1e3, using: &generator),
            text: "héllo \(Int.random(in: 0...1000, using: &generator)) ✓",
            data: Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            date: Date(timeIntervalSince1970: .random(in: 0...2e9, using: &generator).rounded()),
            uuid: UUID(),
            url: URL(string: "https://example.com/\(Int.random(in: 0...99, using: &generator))?q=1")!,
            mood: Mood.allCases.randomElement(using: &generator)!,
            address: Address(street: "Main \(Int.random(in: 1...99, using: &generator))", tags: ["a", "b"]),
            optionalText: optionals ? "present" : nil,
            optionalMood: optionals ? .calm : nil,
            optionalAddress: optionals ? Address(street: "Side", tags: []) : nil
        )
    }
}

extension TemporaryFolder {
    /// 20 random samples (half with their optionals set) written to the store file and
    /// closed; the seed is printed under `label`.
    func writeRandomSamples(_ label: String) throws -> [Sample] {
        let seed = SeededGenerator.freshSeed(for: label)
        var generator = SeededGenerator(seed: seed)
        let samples = (0..<20).map { Sample.random(&generator, optionals: $0.isMultiple(of: 2)) }
        let store = try objectStore(ObjectSchema(Sample.self))
        try store.write { tx in try tx.insert(contentsOf: samples) }
        try store.close()
        return samples
    }

    /// A store file in this folder.
    func objectStore(_ schema: ObjectSchema, name: String = "objects.sqlite") throws -> ObjectStore {
        try ObjectStore(url: file(name), schema: schema)
    }

    /// The same file through plain GRDB, to check what the store wrote with SQL.
    func rawDatabase(_ name: String = "objects.sqlite") throws -> DatabaseQueue {
        try DatabaseQueue(path: file(name).path)
    }
}

/// The code of the `StashError` `body` throws, or `nil` when it throws nothing (or another
/// error type, printed).
func errorCode<T>(_ body: () throws -> T) -> StashError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as StashError {
        return error.code
    } catch {
        print("not a StashError: \(error)")
        return nil
    }
}

/// A person's card: to-one to Person, cascading.
struct Card: Model, Equatable {
    var id: Int64?
    var number: String
    var ownerID: Int64
    static let entity = ObjectEntity<Card>(table: "card").belongsTo(\.ownerID, Person.self, onDelete: .cascade)
}

/// To-one to Person, nullified when the person goes.
struct Note: Model, Equatable {
    var id: Int64?
    var text: String
    var authorID: Int64?
    static let entity = ObjectEntity<Note>().belongsTo(\.authorID, Person.self, onDelete: .nullify)
}

/// To-one to Person, denying the person's deletion.
struct Loan: Model, Equatable {
    var id: Int64?
    var amount: Int
    var borrowerID: Int64
    static let entity = ObjectEntity<Loan>().belongsTo(\.borrowerID, Person.self, onDelete: .deny)
}

/// Many-to-many with Person.
struct Club: Model, Equatable {
    var id: String
    var title: String
    static let entity = ObjectEntity<Club>().manyToMany(Person.self)
}

let graphSchema = ObjectSchema(Person.self, Card.self, Note.self, Loan.self, Club.self)
