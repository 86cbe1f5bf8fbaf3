import ArgumentParser
import Foundation
import Stash
import StashSQL

/// `stash objects info|list|query|export|import --db FILE`: look into an object store's file
/// without the app's model types (tables are read as SQLite sees them).
struct ObjectsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "objects",
        abstract: "Inspect, query, export and import a StashObjects store.",
        subcommands: [ObjectsInfoCommand.self, ObjectsListCommand.self, ObjectsExportCommand.self, ObjectsImportCommand.self]
    )
}

/// `--db FILE`: the store's database file.
struct ObjectsFileOptions: ParsableArguments {
    @Option(name: .long, help: "The object store's database file.")
    var db: String

    func open(readOnly: Bool) throws -> DatabaseQueue {
        guard FileManager.default.fileExists(atPath: db) else { throw StashError(.notFound, "no such store", path: db) }
        var configuration = Configuration()
        configuration.readonly = readOnly
        return try StashDatabase.queue(at: URL(fileURLWithPath: db), configuration: configuration)
    }

    /// The models' tables: everything but SQLite's own (`sqlite_*`), the history log, and
    /// the virtual tables (full-text indexes) with their shadow tables, found by name exactly
    /// (a `LIKE` pattern would take `_` for any character and hide `gifts` or `drafts`).
    static func tables(_ db: Database) throws -> [String] {
        let rows = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
        let virtual = Set(rows.compactMap { row -> String? in
            let sql: String? = row["sql"]
            return sql?.uppercased().hasPrefix("CREATE VIRTUAL TABLE") == true ? row["name"] : nil
        })
        let shadows = Set(virtual.flatMap { name in shadowSuffixes.map { name + "_" + $0 } })
        return rows.compactMap { row -> String? in
            let name: String = row["name"]
            let hidden = name.hasPrefix("sqlite_") || name == "stash_changes" || virtual.contains(name) || shadows.contains(name)
            return hidden ? nil : name
        }
    }

    /// The shadow tables SQLite keeps beside a full-text table `t`: `t_data`, `t_idx`, …
    /// (FTS5's, then FTS3/4's), and `t_keys`, the key table StashObjects adds beside the
    /// index of a `UUID`- or `String`-keyed model.
    static let shadowSuffixes = ["data", "idx", "content", "docsize", "config", "segments", "segdir", "stat", "keys"]

    static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

struct ObjectsInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Schema version and the models' tables with row counts.")

    @OptionGroup var file: ObjectsFileOptions

    func run() throws {
        let queue = try file.open(readOnly: true)
        try queue.read { db in
            print("file            \(file.db)")
            print("schema version  \(try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0)")
            for table in try ObjectsFileOptions.tables(db) {
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(ObjectsFileOptions.quote(table))") ?? 0
                let columns = try db.columns(in: table).map(\.name).joined(separator: ", ")
                print("\(table)  \(count) rows  (\(columns))")
            }
        }
    }
}

struct ObjectsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Rows of one model's table, optionally filtered and sorted.",
        discussion: "Example: stash objects query person --db app.sqlite --where 'age > 20' --sort=-age --limit 10",
        aliases: ["query"]
    )

    @OptionGroup var file: ObjectsFileOptions
    @Argument(help: "The model's table.") var table: String
    @Option(help: "A filter: COLUMN OP VALUE, OP one of = != < <= > >= like (with * and ? wildcards).") var `where`: String?
    @Option(help: "A column to sort by; a leading '-' sorts descending.") var sort: String?
    @Option(help: "At most this many rows.") var limit: Int?

    func run() throws {
        let queue = try file.open(readOnly: true)
        try queue.read { db in
            guard try ObjectsFileOptions.tables(db).contains(table) else { throw StashError(.notFound, "no table '\(table)'", path: file.db) }
            let columns = try db.columns(in: table).map(\.name)
            var sql = "SELECT * FROM \(ObjectsFileOptions.quote(table))"
            var arguments: StatementArguments = []
            if let filter = `where` {
                let parts = filter.split(separator: " ", maxSplits: 2).map(String.init)
                let operators = ["=": "=", "==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "like": "GLOB"]
                guard parts.count == 3, columns.contains(parts[0]), let op = operators[parts[1].lowercased()] else {
                    throw StashError(.invalidKey, "--where wants COLUMN OP VALUE with a column of \(table) (\(columns.joined(separator: ", ")))", key: filter)
                }
                var value = parts[2]
                if value.count >= 2, value.hasPrefix("'") && value.hasSuffix("'") || value.hasPrefix("\"") && value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                sql += " WHERE \(ObjectsFileOptions.quote(parts[0])) \(op) ?"
                if op != "GLOB", let number = Int64(value) { arguments += [number] } else if op != "GLOB", let number = Double(value) { arguments += [number] } else { arguments += [value] }
            }
            if let sort {
                let column = sort.hasPrefix("-") ? String(sort.dropFirst()) : sort
                guard columns.contains(column) else { throw StashError(.invalidKey, "--sort: no column '\(column)' in \(table)", key: sort) }
                sql += " ORDER BY \(ObjectsFileOptions.quote(column))" + (sort.hasPrefix("-") ? " DESC" : "")
            }
            if let limit { sql += " LIMIT \(max(0, limit))" }
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            print(columns.joined(separator: "\t"))
            for row in rows {
                print(columns.map { row[$0] as DatabaseValue }.map { $0.isNull ? "NULL" : "\($0.storage.value ?? "")" }.joined(separator: "\t"))
            }
        }
    }
}

struct ObjectsExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "The whole store as JSON: {\"version\": n, \"tables\": {name: [rows]}}.")

    @OptionGroup var file: ObjectsFileOptions
    @Option(help: "Write to this file instead of standard output.") var output: String?

    func run() throws {
        let queue = try file.open(readOnly: true)
        let document: [String: Any] = try queue.read { db in
            var tables: [String: Any] = [:]
            for table in try ObjectsFileOptions.tables(db) {
                tables[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(ObjectsFileOptions.quote(table))").map { row in
                    var object: [String: Any] = [:]
                    for (column, value) in row {
                        switch value.storage {
                        case .null: object[column] = NSNull()
                        case .int64(let number): object[column] = number
                        case .double(let number): object[column] = number
                        case .string(let text): object[column] = text
                        case .blob(let data): object[column] = ["base64": data.base64EncodedString()]
                        }
                    }
                    return object
                }
            }
            return ["version": try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0, "tables": tables]
        }
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        if let output {
            try FileStore.write(data, to: URL(fileURLWithPath: output))
        } else {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}

struct ObjectsImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Adds the rows of an export to a store whose tables exist, in one transaction (all or nothing)."
    )

    @OptionGroup var file: ObjectsFileOptions
    @Argument(help: "The JSON file written by `stash objects export`.") var input: String

    func run() throws {
        let json = try Data(contentsOf: URL(fileURLWithPath: input))
        guard let document = try? JSONSerialization.jsonObject(with: json) as? [String: Any], let tables = document["tables"] as? [String: [[String: Any]]] else {
            throw StashError(.corruptFile, "not an export of stash objects", path: input)
        }
        let queue = try file.open(readOnly: false)
        let count = try queue.write { db -> Int in
            let known = try ObjectsFileOptions.tables(db)
            var count = 0
            for (table, rows) in tables.sorted(by: { $0.key < $1.key }) {
                guard known.contains(table) else { throw StashError(.notFound, "the store has no table '\(table)'; nothing was imported", path: file.db) }
                for row in rows {
                    let columns = row.keys.sorted()
                    let values: [(any DatabaseValueConvertible)?] = columns.map { column in
                        switch row[column] {
                        case let blob as [String: String]: blob["base64"].flatMap { Data(base64Encoded: $0) }
                        case let number as NSNumber:
                            "\(number)".contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? number.doubleValue : number.int64Value
                        case let text as String: text
                        default: nil
                        }
                    }
                    let list = columns.map(ObjectsFileOptions.quote).joined(separator: ", ")
                    let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
                    try db.execute(sql: "INSERT INTO \(ObjectsFileOptions.quote(table))(\(list)) VALUES (\(marks))", arguments: StatementArguments(values))
                    count += 1
                }
            }
            return count
        }
        print("imported \(count) rows")
    }
}
