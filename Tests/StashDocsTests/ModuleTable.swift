import Foundation

/// The module table of a document: the markdown table whose header starts
/// `| module | depends on |`, one row per module. The first cell is the module's name (in
/// backticks); the second lists its direct dependencies separated by commas, where a note in
/// parentheses is not a name and `—` alone means none.
struct ModuleTable {
    /// The markdown file, relative to the package root.
    var document: String
    /// Each module's dependencies, by module name.
    var rows: [String: Set<String>] = [:]
    /// Modules that have more than one row.
    var repeated: [String] = []

    init(document: String) throws {
        self.document = document
        let text = try String(contentsOf: DocumentedExample.packageRoot.appendingPathComponent(document), encoding: .utf8)
        let lines = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let header = lines.firstIndex(where: { Self.isHeader($0) }) else { return }
        for line in lines[(header + 1)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map(String.init)
            guard cells.count >= 2, !cells[0].allSatisfy({ $0 == "-" || $0 == ":" || $0 == " " }) else { continue }
            let module = Self.name(cells[0])
            if rows[module] != nil { repeated.append(module) }
            rows[module] = Self.dependencies(cells[1])
        }
    }

    static func isHeader(_ line: String) -> Bool {
        let cells = line.lowercased().split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        return cells.count >= 2 && cells[0] == "module" && cells[1] == "depends on"
    }

    /// `StashCore, GRDB.swift (SQLite)` → `["StashCore", "GRDB.swift"]`; `— (Foundation only)` → `[]`.
    static func dependencies(_ cell: String) -> Set<String> {
        var outside = ""
        var depth = 0
        for character in cell {
            if character == "(" { depth += 1 } else if character == ")" { depth = max(0, depth - 1) } else if depth == 0 { outside.append(character) }
        }
        return Set(outside.split(separator: ",").map { name(String($0)) }.filter { !$0.isEmpty && $0 != "—" && $0 != "-" })
    }

    static func name(_ text: String) -> String {
        text.replacingOccurrences(of: "`", with: "").trimmingCharacters(in: .whitespaces)
    }

    /// What differs from the manifest: a line per module missing, extra, or whose
    /// dependencies are not the manifest's.
    func differences(from expected: [String: Set<String>]) -> [String] {
        var found: [String] = repeated.map { "\(document): `\($0)` has more than one row" }
        for (module, dependencies) in expected.sorted(by: { $0.key < $1.key }) {
            guard let listed = rows[module] else {
                found.append("\(document): no row for `\(module)` (Package.swift: depends on \(dependencies.sorted().joined(separator: ", ")))")
                continue
            }
            let missing = dependencies.subtracting(listed).sorted(), extra = listed.subtracting(dependencies).sorted()
            if !missing.isEmpty {
                found.append("\(document): `\(module)` does not name \(missing.joined(separator: ", ")), which Package.swift lists")
            }
            if !extra.isEmpty {
                found.append("\(document): `\(module)` names \(extra.joined(separator: ", ")), which Package.swift does not list")
            }
        }
        for module in rows.keys.sorted() where expected[module] == nil {
            found.append("\(document): a row for `\(module)`, which is not a target this table covers")
        }
        return found
    }
}
