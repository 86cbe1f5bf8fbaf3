import Foundation
import GRDB
import StashCore
import StashSQL
import StashTestSupport
import Testing

/// `StashDatabase`'s row of the Durability table, against power cuts simulated by the crash
/// explorer through SQLite's own file calls: a transaction that returned survives whole (the
/// write connection commits with `synchronous = FULL`), one that did not is whole or absent,
/// in a queue and in a pool (WAL) alike, checkpoints included.
@Suite struct StashDatabasePowerLossTests {
    static let rowsPerTransaction = 40

    /// Transactions that each insert their rows and move a total, so that a half-applied one
    /// shows; `committed` counts those that returned.
    func workload(_ writer: some DatabaseWriter, committed: LockedValue<Int>) throws {
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, tx INTEGER NOT NULL, body TEXT NOT NULL)")
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS total (id INTEGER PRIMARY KEY CHECK (id = 1), rows INTEGER NOT NULL)")
            try db.execute(sql: "INSERT OR IGNORE INTO total VALUES (1, 0)")
        }
        for tx in 1...8 {
            try writer.write { db in
                for row in 0..<Self.rowsPerTransaction {
                    try db.execute(sql: "INSERT INTO item (tx, body) VALUES (?, ?)", arguments: [tx, String(repeating: "\(row % 10)", count: 200)])
                }
                try db.execute(sql: "UPDATE total SET rows = rows + ?", arguments: [Self.rowsPerTransaction])
            }
            committed.withLock { $0 = tx }
            if tx == 5 { _ = try writer.writeWithoutTransaction { try $0.checkpoint(.truncate) } }
        }
    }

    func check(_ file: URL, committed: Int) throws -> [String] {
        guard FileManager.default.fileExists(atPath: file.path) else {
            return committed == 0 ? [] : ["the database is gone after \(committed) commits"]
        }
        var problems: [String] = []
        let queue = try StashDatabase.queue(at: file)
        try queue.read { db in
            guard try db.tableExists("total") else {
                if committed > 0 { problems.append("the tables are gone after \(committed) commits") }
                return
            }
            let total = try Int.fetchOne(db, sql: "SELECT rows FROM total") ?? 0
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? 0
            let transactions = try Int.fetchAll(db, sql: "SELECT DISTINCT tx FROM item ORDER BY tx")
            if rows != total { problems.append("\(rows) rows, the total says \(total): a transaction shows in part") }
            if rows % Self.rowsPerTransaction != 0 { problems.append("\(rows) rows is not whole transactions") }
            if !transactions.isEmpty, transactions != Array(1...transactions.count) {
                problems.append("transactions \(transactions) are not the first ones")
            }
            if transactions.count < committed { problems.append("\(transactions.count) transactions show, \(committed) were committed") }
        }
        do {
            try queue.write { db in
                if try db.tableExists("item") { try db.execute(sql: "INSERT INTO item (tx, body) VALUES (99, 'after')") }
            }
        } catch {
            problems.append("the next write fails: \(error)")
        }
        try queue.close()
        return problems
    }

    @Test(arguments: PersistenceModel.allCases, ["queue", "pool"])
    func committedTransactionsSurviveAPowerCut(model: PersistenceModel, kind: String) async {
        ObservedSQLite.install()
        let committed = LockedValue(0)
        let report = await offThePool { CrashExplorer<Int>("SQL database (\(kind))", model: model).run(
            workload: { folder in
                let file = folder.appendingPathComponent("data.sqlite")
                if kind == "pool" {
                    let pool = try StashDatabase.pool(at: file)
                    try workload(pool, committed: committed)
                    try pool.close()
                } else {
                    let queue = try StashDatabase.queue(at: file)
                    try workload(queue, committed: committed)
                    try queue.close()
                }
            },
            expectation: { committed.withLock { $0 } },
            check: { folder, committed in try check(folder.appendingPathComponent("data.sqlite"), committed: committed) }
        ) }
        #expect(report.states >= min(CrashExplorer<Int>.defaultBudget, 100), "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }
}
