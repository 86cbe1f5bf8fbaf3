import Foundation
import GRDB
import StashCore
import StashObjects
import StashTestSupport
import Testing

/// The object store's row of the Durability table, against power cuts simulated by the crash
/// explorer through SQLite's own file calls (``ObservedSQLite``): every transaction that
/// returned survives a power cut whole, one that did not is whole or absent, and a migration
/// by table rebuild leaves the old schema or the new one.
@Suite struct ObjectStorePowerLossTests {
    /// How many batches of ``batchSize`` rows had been committed, and whether the migration
    /// to version 2 had returned.
    struct Acknowledged: Sendable {
        var batches = 0
        var migrated = false
    }

    static let batchSize = 25
    static let fileName = "objects.sqlite"

    /// Three batches at version 1 (one transaction each, and an update of the first), a
    /// migration that drops a column by rebuilding the table, then two batches at version 2.
    func workload(_ folder: URL, acknowledged: LockedValue<Acknowledged>) throws {
        let url = folder.appendingPathComponent(Self.fileName)
        let text = String(repeating: "x", count: 300)
        do {
            let store = try ObjectStore(url: url, schema: ObjectSchema(HostEntry.self))
            for batch in 0..<3 {
                try store.write { tx in
                    for index in 0..<Self.batchSize {
                        try tx.insert(HostEntry(id: nil, writer: "w", batch: batch, index: index, text: text))
                    }
                }
                acknowledged.withLock { $0.batches += 1 }
            }
            try store.close()
        }
        let store = try ObjectStore(url: url, schema: ObjectSchema(version: 2, HostEntryV2.self))
        acknowledged.withLock { $0.migrated = true }
        for batch in 3..<5 {
            try store.write { tx in
                for index in 0..<Self.batchSize { try tx.insert(HostEntryV2(id: nil, writer: "w", batch: "\(batch)", index: index)) }
            }
            acknowledged.withLock { $0.batches += 1 }
        }
        try store.close()
    }

    func check(_ folder: URL, _ acknowledged: Acknowledged) throws -> [String] {
        let url = folder.appendingPathComponent(Self.fileName)
        guard FileManager.default.fileExists(atPath: url.path) else {
            return acknowledged.batches == 0 ? [] : ["the database is gone after \(acknowledged.batches) committed batches"]
        }
        var problems: [String] = []
        let database = try DatabaseQueue(path: url.path)
        let (columns, version, counts) = try database.read { db in
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('entry')")
            let counts = columns.isEmpty ? [:] : try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT CAST(batch AS INTEGER) AS b, count(*) AS n FROM entry GROUP BY b")
                    .map { (($0["b"] as Int), ($0["n"] as Int)) }
            )
            return (columns, try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1, counts)
        }
        try database.close()
        let old = columns == ["id", "writer", "batch", "index", "text"] && version == 1
        let new = columns == ["id", "writer", "batch", "index"] && version == 2
        if columns.isEmpty, acknowledged.batches == 0 { return [] }
        if !old, !new { problems.append("columns \(columns) at version \(version): neither schema") }
        if old, acknowledged.migrated { problems.append("the migration returned, the old schema shows") }
        for (batch, count) in counts where count != Self.batchSize { problems.append("batch \(batch) shows \(count) of \(Self.batchSize) rows") }
        let shown = counts.keys.sorted()
        if shown != Array(0..<shown.count) { problems.append("batches \(shown) are not the first ones") }
        if shown.count < acknowledged.batches { problems.append("\(shown.count) batches show, \(acknowledged.batches) were committed") }
        do {
            let store = try ObjectStore(url: url, schema: ObjectSchema(version: 2, HostEntryV2.self))
            try store.write { tx in try tx.insert(HostEntryV2(id: nil, writer: "after", batch: "99", index: 0)) }
            if try store.count(HostEntryV2.query().filter(\.writer == "after")) != 1 { problems.append("the next write does not show") }
            try store.close()
        } catch {
            problems.append("the store does not open or take the next write: \(error)")
        }
        return problems
    }

    @Test(arguments: PersistenceModel.allCases)
    func committedTransactionsAndMigrationsSurviveAPowerCut(model: PersistenceModel) async {
        ObservedSQLite.install()
        let acknowledged = LockedValue(Acknowledged())
        let report = await offThePool { CrashExplorer<Acknowledged>("object store", model: model).run(
            workload: { try workload($0, acknowledged: acknowledged) },
            expectation: { acknowledged.withLock { $0 } },
            check: check
        ) }
        #expect(report.states >= min(CrashExplorer<Acknowledged>.defaultBudget, 100), "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }
}
