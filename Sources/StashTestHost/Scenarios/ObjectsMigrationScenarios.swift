import Foundation
import Stash

/// `HostEntry` as version 2 of its app declares it: `batch` retyped as a string, `text`
/// dropped, so that opening a version 1 file rebuilds the table.
struct HostEntryV2: Model {
    var id: Int64?
    var writer: String
    var batch: String
    var index: Int
    static let entity = ObjectEntity<HostEntryV2>(table: "entry").indexed(\.batch)
}

/// Scenarios named "objects.migrate…".
let objectsMigrationScenarios: [String: Scenario] = [
    // objects.migrate FILE: prints "migrating", opens the file with HostEntryV2 (a rebuild
    // of every row), prints "migrated"; killed by the test somewhere in between.
    "objects.migrate": { arguments in
        guard arguments.count == 1 else { throw usage("objects.migrate FILE") }
        report("migrating")
        let store = try ObjectStore(url: URL(fileURLWithPath: arguments[0]), schema: ObjectSchema(version: 2, HostEntryV2.self))
        report("migrated")
        try store.close()
    },
]
