import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

// Declarations a store must refuse when it opens, with a typed error and without creating
// its file.

private struct Orphan: Model {
    var id: Int64?
    var ownerID: Int64
    static let owner = ToOne<Orphan, Stranger>("owner", key: \.ownerID, onDelete: .cascade)
    static let entity = ObjectEntity<Orphan>().relationships(owner)
}

private struct Stranger: Model {
    var id: Int64?
}

private struct Twice: Model {
    var id: Int64?
    var aID: Int64?
    var bID: Int64?
    static let a = ToOne<Twice, Twice>("link", key: \.aID)
    static let b = ToOne<Twice, Twice>("link", key: \.bID)
    static let entity = ObjectEntity<Twice>().relationships(a, b)
}

private struct NoInverse: Model {
    var id: Int64?
    static let things = ToMany<NoInverse, Thing>("things", inverse: "missing")
    static let entity = ObjectEntity<NoInverse>().relationships(things)
}

private struct Thing: Model {
    var id: Int64?
    var ownerID: Int64?
    static let owner = ToOne<Thing, NoInverse>("owner", key: \.ownerID, inverse: "elsewhere")
    static let entity = ObjectEntity<Thing>().relationships(owner)
}

private struct KeyBothSides: Model {
    var id: Int64?
    var peerID: Int64?
    static let peer = ToOne<KeyBothSides, KeyBothSides>("peer", key: \.peerID, inverse: "peer")
    static let entity = ObjectEntity<KeyBothSides>().relationships(peer)
}

private struct StrictKey: Model {
    var id: Int64?
    var ownerID: Int64
    static let owner = ToOne<StrictKey, Stranger>("owner", key: \.ownerID, onDelete: .nullify)
    static let entity = ObjectEntity<StrictKey>().relationships(owner)
}

private struct SelfInverse: Model {
    var id: Int64?
    static let friends = ToMany<SelfInverse, SelfInverse>("friends", inverse: "friends")
    static let entity = ObjectEntity<SelfInverse>().relationships(friends)
}

struct RelationshipSchemaErrorTests {
    let folder = TemporaryFolder("objects-named-errors")

    func refusal(_ schema: ObjectSchema) -> StashError? {
        do {
            _ = try folder.objectStore(schema)
            return nil
        } catch let error as StashError {
            return error
        } catch {
            return nil
        }
    }

    @Test(arguments: [
        (ObjectSchema(Orphan.self), StashError.Code.unknownModel, "Orphan.owner"),
        (ObjectSchema(Twice.self), .invalidSchema, "Twice.link"),
        (ObjectSchema(NoInverse.self, Thing.self), .invalidSchema, "NoInverse.things"),
        (ObjectSchema(Thing.self, NoInverse.self), .invalidSchema, "Thing.owner"),
        (ObjectSchema(KeyBothSides.self), .invalidSchema, "KeyBothSides.peer"),
        (ObjectSchema(StrictKey.self, Stranger.self), .invalidSchema, "StrictKey.ownerID"),
        (ObjectSchema(SelfInverse.self), .invalidSchema, "SelfInverse.friends"),
    ])
    func refusedAtOpenBeforeTheFileExists(schema: ObjectSchema, code: StashError.Code, key: String) {
        let error = refusal(schema)
        #expect(error?.code == code)
        #expect(error?.key == key)
        #expect(!FileManager.default.fileExists(atPath: folder.file("objects.sqlite").path))
    }

    @Test func aRelationshipNotListedInTheEntityIsATypedErrorWhenRead() throws {
        let store = try folder.objectStore(ObjectSchema(Stranger.self, Orphan.self))
        let orphan = Orphan(id: 1, ownerID: 1)
        #expect(errorCode { try store.fetch(orphan.related(Orphan.owner)) } == nil)
        struct Unlisted: Model {
            var id: Int64?
            var ownerID: Int64?
            static let owner = ToOne<Unlisted, Stranger>("owner", key: \.ownerID)
        }
        let other = try folder.objectStore(ObjectSchema(Stranger.self, Unlisted.self), name: "other.sqlite")
        #expect(errorCode { try other.fetch(Unlisted(id: 1, ownerID: 1).related(Unlisted.owner)) } == .unknownAttribute)
    }
}
