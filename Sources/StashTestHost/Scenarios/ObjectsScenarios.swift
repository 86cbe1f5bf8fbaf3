import Foundation
import Stash

/// The model the object-store scenarios write; the tests declare the same table.
struct HostEntry: Model {
    var id: Int64?
    var writer: String
    var batch: Int
    var index: Int
    var text: String
    static let entity = ObjectEntity<HostEntry>(table: "entry").indexed(\.batch)
}

/// Scenarios named "objects.…".
let objectsScenarios: [String: Scenario] = [
    // objects.write-loop FILE SIZE FIRST: writes batches FIRST, FIRST + 1, … of SIZE entries,
    // one transaction each, forever; prints "committed <batch>" once each commit returned,
    // until killed.
    "objects.write-loop": { arguments in
        guard arguments.count == 3, let size = Int(arguments[1]), let first = Int(arguments[2]) else {
            throw usage("objects.write-loop FILE SIZE FIRST")
        }
        let store = try ObjectStore(url: URL(fileURLWithPath: arguments[0]), schema: ObjectSchema(HostEntry.self))
        report("ready")
        var batch = first
        let text = String(repeating: "x", count: 200)
        while true {
            try store.write { tx in
                for index in 0..<size { try tx.insert(HostEntry(id: nil, writer: "loop", batch: batch, index: index, text: text)) }
            }
            report("committed \(batch)")
            batch += 1
        }
    },
    // objects.write-range FILE WRITER COUNT BARRIER: once the file BARRIER exists, inserts
    // COUNT entries of WRITER, one transaction each, then prints "written START END": the
    // monotonic clock (nanoseconds, one clock for every process) before the first write
    // and after the last.
    "objects.write-range": { arguments in
        guard arguments.count == 4, let count = Int(arguments[2]) else { throw usage("objects.write-range FILE WRITER COUNT BARRIER") }
        let store = try ObjectStore(url: URL(fileURLWithPath: arguments[0]), schema: ObjectSchema(HostEntry.self))
        report("ready")
        try awaitStart(arguments[3])
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<count {
            try store.write { tx in try tx.insert(HostEntry(id: nil, writer: arguments[1], batch: 0, index: index, text: "\(arguments[1]) \(index)")) }
        }
        report("written \(start) \(DispatchTime.now().uptimeNanoseconds)")
    },
]
