import Foundation

/// One measurement: `ops` operations of `case` by `impl` took `seconds`.
struct BenchResult: Sendable {
    var suite: String
    var `case`: String
    var impl: String
    var ops: Int
    var seconds: Double
    /// Further fields for non-timing figures (a file size, an open time), printed as is.
    var extra: [String: String] = [:]

    var opsPerSecond: Double { seconds > 0 ? Double(ops) / seconds : .infinity }
}

/// Prints results as JSON lines (`--json`) or as a table grouped by suite and case, with
/// each implementation's speed relative to the first one measured (Stash).
final class BenchReporter: @unchecked Sendable {
    private let json: Bool
    private let lock = NSLock()
    private var results: [BenchResult] = []

    init(json: Bool) { self.json = json }

    func record(_ result: BenchResult) {
        lock.lock()
        results.append(result)
        lock.unlock()
        if json {
            var fields = [
                "\"suite\":\(quoted(result.suite))",
                "\"case\":\(quoted(result.case))",
                "\"impl\":\(quoted(result.impl))",
                "\"ops\":\(result.ops)",
                "\"seconds\":\(String(format: "%.6f", result.seconds))",
            ]
            for (key, value) in result.extra.sorted(by: { $0.key < $1.key }) {
                fields.append("\(quoted(key)):\(Double(value) != nil ? value : quoted(value))")
            }
            print("{" + fields.joined(separator: ",") + "}")

        }
    }

    /// A note that is not a timing (for example a file size), printed in both modes.
    func note(_ line: String) {
        if json {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } else {
            print(line)
        }
    }

    func finish() {
        guard !json else { return }
        lock.lock()
        let all = results
        lock.unlock()
        var groups: [(String, [BenchResult])] = []
        for result in all {
            let key = result.suite + " / " + result.case
            if let index = groups.firstIndex(where: { $0.0 == key }) {
                groups[index].1.append(result)
            } else {
                groups.append((key, [result]))
            }
        }
        print(pad("suite / case", 34) + pad("impl", 26) + pad("ops", 10, left: true)
            + pad("seconds", 12, left: true) + pad("ops/s", 14, left: true) + pad("vs first", 10, left: true))
        for (key, results) in groups {
            let reference = results[0].opsPerSecond
            for result in results {
                let ratio = result.opsPerSecond / reference
                var line = pad(key, 34) + pad(result.impl, 26) + pad("\(result.ops)", 10, left: true)
                line += pad(String(format: "%.4f", result.seconds), 12, left: true)
                line += pad(String(format: "%.0f", result.opsPerSecond), 14, left: true)
                line += pad(String(format: "%.2fx", ratio), 10, left: true)
                for (name, value) in result.extra.sorted(by: { $0.key < $1.key }) { line += "  \(name)=\(value)" }
                print(line)
            }
        }
    }

    private func quoted(_ string: String) -> String {
        "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func pad(_ string: String, _ width: Int, left: Bool = false) -> String {
        guard string.count < width else { return string + " " }
        let padding = String(repeating: " ", count: width - string.count)
        return left ? padding + string : string + padding
    }
}
