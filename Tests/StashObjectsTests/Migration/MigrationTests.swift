import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// v1 -> v2 automatic, v2 -> v3 explicit, a failing step and a newer file leave the file
/// byte-identical.
struct MigrationTests {
    struct PersonV1: Model {
        var id: Int64?
        var name: String
        var age: Int
        static let entity = ObjectEntity<PersonV1>(table: "person")
    }

    struct PersonV2: Model {
        var id: Int64?
        var name: String
        var age: Int
        var nickname: String?
        var country: String
        static let entity = ObjectEntity<PersonV2>(table: "person").defaultValue(\.country, "unknown").indexed(\.age)
    }

    struct BadgeV2: Model {
        var id: Int64?
        var label: String
        var holderID: Int64
        static let entity = ObjectEntity<BadgeV2>(table: "badge").belongsTo(\.holderID, PersonV2.self, onDelete: .cascade)
    }

    struct PersonV3: Model {
        var id: Int64?
        var fullName: String
        var age: Int
        var nickname: String?
        var country: String
        static let entity = ObjectEntity<PersonV3>(table: "person").defaultValue(\.country, "unknown")
    }

    struct BadgeV3: Model {
        var id: Int64?
        var label: String
        var holderID: Int64
        static let entity = ObjectEntity<BadgeV3>(table: "badge").belongsTo(\.holderID, PersonV3.self, onDelete: .cascade)
    }

    static let v3 = ObjectSchema(version: 3, PersonV3.self, BadgeV3.self, migrations: [
        MigrationStep(to: 3) { migration in
            try migration.renameAttribute("name", to: "fullName", in: PersonV3.self)
            try migration.rewrite(PersonV3.self) { $0.fullName = $0.fullName.uppercased() }
        },
    ])

    func bytes(_ folder: TemporaryFolder) throws -> Data { try Data(contentsOf: folder.file("objects.sqlite")) }

    /// A v2 store with two people and a badge, closed and checkpointed.
    func makeV2(_ folder: TemporaryFolder) throws {
        do {
            let store = try folder.objectStore(ObjectSchema(version: 1, PersonV1.self))
            try store.write { tx in
                try tx.insert(PersonV1(id: nil, name: "Ada", age: 36))
                try tx.insert(PersonV1(id: nil, name: "Grace", age: 85))
            }
            try store.close()
        }
        let store = try folder.objectStore(ObjectSchema(version: 2, PersonV2.self, BadgeV2.self))
        let people = try store.fetch(PersonV2.query().sorted(\.id))
        #expect(people.map(\.name) == ["Ada", "Grace"])
        #expect(people.map(\.country) == ["unknown", "unknown"])
        #expect(people.map(\.nickname) == [nil, nil])
        try store.write { tx in try tx.insert(BadgeV2(id: nil, label: "pioneer", holderID: people[0].id!)) }
        try store.close()
    }

    @Test func v1ToV2IsAutomaticAndV2ToV3RunsTheExplicitStep() throws {
        let folder = TemporaryFolder("objects-migrate")
        try makeV2(folder)
        let version = try folder.rawDatabase().read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == 2)
        let store = try folder.objectStore(Self.v3)
        #expect(try store.fetch(PersonV3.query().sorted(\.id)).map(\.fullName) == ["ADA", "GRACE"])
        #expect(try store.fetch(BadgeV3.query()).map(\.label) == ["pioneer"])
        // The relationship still cascades after the rename.
        try store.write { tx in try tx.delete(PersonV3.self, id: 1) }
        #expect(try store.count(BadgeV3.query()) == 0)
    }

    @Test func aFailingStepLeavesTheV2FileByteIdentical() throws {
        let folder = TemporaryFolder("objects-migrate-fail")
        try makeV2(folder)
        let before = try bytes(folder)
        struct Broken: Error {}
        let failing = ObjectSchema(version: 3, PersonV3.self, BadgeV3.self, migrations: [
            MigrationStep(to: 3) { migration in
                try migration.renameAttribute("name", to: "fullName", in: PersonV3.self)
                try migration.rewrite(PersonV3.self) { $0.fullName = "" }
                throw Broken()
            },
        ])
        #expect(errorCode { try folder.objectStore(failing) } == .migrationFailed)
        #expect(try bytes(folder) == before)
        // And the v2 app still opens it with its data.
        let store = try folder.objectStore(ObjectSchema(version: 2, PersonV2.self, BadgeV2.self))
        #expect(try store.fetch(PersonV2.query().sorted(\.id)).map(\.name) == ["Ada", "Grace"])
    }

    @Test func aNewerFileIsRefusedUntouched() throws {
        let folder = TemporaryFolder("objects-migrate-newer")
        do {
            let store = try folder.objectStore(Self.v3)
            try store.write { tx in try tx.insert(PersonV3(id: nil, fullName: "Ada", age: 36, country: "UK")) }
            try store.close()
        }
        try folder.rawDatabase().write { db in try db.execute(sql: "PRAGMA user_version = 4") }
        let before = try bytes(folder)
        #expect(errorCode { try folder.objectStore(Self.v3) } == .unsupportedVersion)
        #expect(try bytes(folder) == before)
    }

    @Test func aNewAttributeWithoutDefaultNeedsAStep() throws {
        struct PersonStrict: Model {
            var id: Int64?
            var name: String
            var age: Int
            var code: String
            static let entity = ObjectEntity<PersonStrict>(table: "person")
        }
        let folder = TemporaryFolder("objects-migrate-strict")
        try makeV2(folder)
        let before = try bytes(folder)
        #expect(errorCode { try folder.objectStore(ObjectSchema(version: 3, PersonStrict.self)) } == .migrationFailed)
        #expect(try bytes(folder) == before)
    }
}
