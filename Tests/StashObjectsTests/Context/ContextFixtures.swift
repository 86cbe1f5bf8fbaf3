import Foundation
import StashObjects
import StashTestSupport

extension TemporaryFolder {
    /// A store of `schema` in this folder holding Ada (id 1, 36) and Grace (id 2, 85).
    func storeWithAdaAndGrace(_ schema: ObjectSchema = graphSchema) throws -> ObjectStore {
        let store = try objectStore(schema)
        try store.write { tx in
            try tx.insert(Person(id: nil, name: "Ada", age: 36))
            try tx.insert(Person(id: nil, name: "Grace", age: 85))
        }
        return store
    }
}
