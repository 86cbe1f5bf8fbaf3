import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// Unique constraints, indexes, delete rules and foreign keys changed between versions.
struct ConstraintMigrationTests {
    struct Member: Model {
        var id: Int64?
        var email: String
        var age: Int
        static let entity = ObjectEntity<Member>(table: "member")
    }

    struct UniqueMember: Model {
        var id: Int64?
        var email: String
        var age: Int
        static let entity = ObjectEntity<UniqueMember>(table: "member").unique(\.email).indexed(\.age)
    }

    func seedMembers(_ label: String, emails: [String]) throws -> MigrationFixture {
        try MigrationFixture(label, ObjectSchema(Member.self)) { tx in
            for (index, email) in emails.enumerated() { try tx.insert(Member(id: nil, email: email, age: 20 + index)) }
        }
    }

    @Test func aUniqueConstraintAndAnIndexAreAddedThenRemoved() throws {
        let fixture = try seedMembers("objects-migrate-unique", emails: ["a@x", "b@x"])
        let store = try fixture.open(ObjectSchema(UniqueMember.self))
        #expect(try fixture.indexes("member") == ["member_age_index", "member_email_unique"])
        #expect(errorCode { try store.write { tx in try tx.insert(UniqueMember(id: nil, email: "a@x", age: 1)) } } == .uniqueViolation)
        try store.close()
        try fixture.expectSecondOpenWritesNothing(ObjectSchema(UniqueMember.self))
        let back = try fixture.open(ObjectSchema(Member.self))
        #expect(try fixture.indexes("member").isEmpty)
        try back.write { tx in try tx.insert(Member(id: nil, email: "a@x", age: 1)) }
        #expect(try back.count(Member.query().filter(\.email == "a@x")) == 2)
        try back.close()
        try fixture.expectSecondOpenWritesNothing(ObjectSchema(Member.self))
    }

    @Test func aUniqueConstraintOverDuplicatesIsRefusedUntouched() throws {
        let fixture = try seedMembers("objects-migrate-unique-dup", emails: ["a@x", "b@x", "a@x"])
        fixture.expectRefusal(ObjectSchema(UniqueMember.self), key: "UniqueMember.email")
    }

    struct Owner: Model {
        var id: Int64?
        var name: String
        var nickname: String?
        static let entity = ObjectEntity<Owner>(table: "owner")
    }

    struct Pet: Model {
        var id: Int64?
        var name: String
        var ownerID: Int64
        static let entity = ObjectEntity<Pet>(table: "pet")
    }

    /// Two owners, a pet each.
    /// Two owners, a pet each (`cascading`: through a cascading relationship already).
    func seedPets(_ label: String, cascading: Bool = false, orphan: Bool = false) throws -> MigrationFixture {
        try MigrationFixture(label, cascading ? ObjectSchema(Owner.self, CascadingPet.self) : ObjectSchema(Owner.self, Pet.self)) { tx in
            try tx.insert(Owner(id: 1, name: "Ada", nickname: "A"))
            try tx.insert(Owner(id: 2, name: "Grace", nickname: nil))
            for (id, owner) in [(Int64(1), Int64(1)), (2, orphan ? 99 : 2)] {
                if cascading {
                    try tx.insert(CascadingPet(id: id, name: id == 1 ? "Rex" : "Tom", ownerID: owner))
                } else {
                    try tx.insert(Pet(id: id, name: id == 1 ? "Rex" : "Tom", ownerID: owner))
                }
            }
        }
    }

    struct CascadingPet: Model {
        var id: Int64?
        var name: String
        var ownerID: Int64
        static let entity = ObjectEntity<CascadingPet>(table: "pet").belongsTo(\.ownerID, Owner.self, onDelete: .cascade)
    }

    /// The defect: an existing column that gains `belongsTo` got no foreign key.
    @Test func anExistingColumnGainingBelongsToGetsItsForeignKey() throws {
        let fixture = try seedPets("objects-migrate-belongs")
        let schema = ObjectSchema(Owner.self, CascadingPet.self)
        let store = try fixture.open(schema)
        #expect(errorCode { try store.write { tx in try tx.insert(CascadingPet(id: nil, name: "Ghost", ownerID: 99)) } } == .missingRelatedObject)
        try store.write { tx in _ = try tx.delete(Owner.self, id: 1) }
        #expect(try store.fetch(CascadingPet.query()).map(\.name) == ["Tom"])
        try store.close()
        try fixture.expectSecondOpenWritesNothing(schema)
    }

    @Test func aColumnGainingBelongsToOverAMissingObjectIsRefusedUntouched() throws {
        let fixture = try seedPets("objects-migrate-belongs-orphan", orphan: true)
        fixture.expectRefusal(ObjectSchema(Owner.self, CascadingPet.self), key: "CascadingPet.ownerID")
    }

    struct Collar: Model {
        var id: Int64?
        var size: Int
        var petID: Int64?
        static let entity = ObjectEntity<Collar>(table: "collar")
    }

    struct LinkedCollar: Model {
        var id: Int64?
        var size: Int
        var petID: Int64?
        static let entity = ObjectEntity<LinkedCollar>(table: "collar").belongsTo(\.petID, Pet.self)
    }

    /// The README's "a new relationship is additive": on an existing column it is enforced.
    @Test func aNewRelationshipOnAnExistingColumnIsEnforced() throws {
        let fixture = try MigrationFixture("objects-migrate-new-relationship", ObjectSchema(Pet.self, Collar.self)) { tx in
            try tx.insert(Pet(id: 1, name: "Rex", ownerID: 1))
            try tx.insert(Collar(id: nil, size: 3, petID: 1))
        }
        let schema = ObjectSchema(Pet.self, LinkedCollar.self)
        let store = try fixture.open(schema)
        #expect(errorCode { try store.write { tx in try tx.insert(LinkedCollar(id: nil, size: 4, petID: 7)) } } == .missingRelatedObject)
        // The default rule of an optional key: nullify.
        try store.write { tx in _ = try tx.delete(Pet.self, id: 1) }
        #expect(try store.fetch(LinkedCollar.query()).map(\.petID) == [nil])
        try store.close()
        try fixture.expectSecondOpenWritesNothing(schema)
    }

    struct DenyingPet: Model {
        var id: Int64?
        var name: String
        var ownerID: Int64
        static let entity = ObjectEntity<DenyingPet>(table: "pet").belongsTo(\.ownerID, Owner.self, onDelete: .deny)
    }

    @Test func aChangedDeleteRuleIsMigrated() throws {
        let fixture = try seedPets("objects-migrate-rule", cascading: true)
        let schema = ObjectSchema(Owner.self, DenyingPet.self)
        let store = try fixture.open(schema)
        #expect(errorCode { try store.write { tx in _ = try tx.delete(Owner.self, id: 1) } } == .deleteDenied)
        #expect(try store.count(DenyingPet.query()) == 2)
        try store.close()
        try fixture.expectSecondOpenWritesNothing(schema)
    }

    struct SlimOwner: Model {
        var id: Int64?
        var name: String
        static let entity = ObjectEntity<SlimOwner>(table: "owner")
    }

    struct SlimOwnersPet: Model {
        var id: Int64?
        var name: String
        var ownerID: Int64
        static let entity = ObjectEntity<SlimOwnersPet>(table: "pet").belongsTo(\.ownerID, SlimOwner.self, onDelete: .cascade)
    }

    /// The rebuilt table is the parent: its children's foreign keys still point at it, and
    /// the rebuild (foreign keys off) cascaded nothing.
    @Test func foreignKeysPointingAtARebuiltTableStillHold() throws {
        let fixture = try seedPets("objects-migrate-parent", cascading: true)
        let store = try fixture.open(ObjectSchema(SlimOwner.self, SlimOwnersPet.self))
        #expect(try fixture.columns("owner") == ["id INTEGER", "name TEXT NOT NULL"])
        #expect(try store.count(SlimOwnersPet.query()) == 2)
        #expect(try fixture.holder.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }.isEmpty)
        #expect(errorCode { try store.write { tx in try tx.insert(SlimOwnersPet(id: nil, name: "Ghost", ownerID: 99)) } } == .missingRelatedObject)
        try store.write { tx in _ = try tx.delete(SlimOwner.self, id: 2) }
        #expect(try store.fetch(SlimOwnersPet.query()).map(\.name) == ["Rex"])
        try store.close()
    }
}
