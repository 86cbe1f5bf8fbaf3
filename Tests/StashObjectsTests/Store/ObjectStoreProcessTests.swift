import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The entries `stash-testhost objects.*` writes (same table and columns).
struct HostEntry: Model {
    var id: Int64?
    var writer: String
    var batch: Int
    var index: Int
    var text: String
    static let entity = ObjectEntity<HostEntry>(table: "entry").indexed(\.batch)
}

/// Real child processes: killed with SIGKILL during large writes, and two writing at once.
struct ObjectStoreProcessTests {
    @Test func aKilledWriterLosesNoCommittedTransactionAndLeavesNoPartialOne() throws {
        let folder = TemporaryFolder("objects-crash")
        let file = folder.file("crash.sqlite")
        let size = 2000
        for round in 0..<3 {
            let child = try ChildProcess.testHost("objects.write-loop", file.path, "\(size)")
            #expect(child.readLine() == "ready")
            var acknowledged: [Int] = []
            let target = 2 + round * 3
            while acknowledged.count < target, let line = child.readLine() {
                if line.hasPrefix("committed "), let batch = Int(line.dropFirst(10)) { acknowledged.append(batch) }
            }
            child.kill()
            #expect(child.wait() == 128 + SIGKILL)
            while let line = child.readLine() {
                if line.hasPrefix("committed "), let batch = Int(line.dropFirst(10)) { acknowledged.append(batch) }
            }
            let store = try ObjectStore(url: file, schema: ObjectSchema(HostEntry.self))
            let entries = try store.fetch(HostEntry.query())
            let counts = Dictionary(grouping: entries, by: \.batch).mapValues(\.count)
            // Each round restarts at batch 0: count this round's batches by writer order.
            for batch in acknowledged { #expect(counts[batch] != nil) }
            #expect(counts.values.allSatisfy { $0 % size == 0 }, "a partial transaction survived: \(counts)")
            try store.close()
        }
    }

    @Test func twoProcessesWritingTheSameStoreLoseNothing() throws {
        let folder = TemporaryFolder("objects-two")
        let file = folder.file("shared.sqlite")
        _ = try ObjectStore(url: file, schema: ObjectSchema(HostEntry.self))
        let count = 300
        let first = try ChildProcess.testHost("objects.write-range", file.path, "a", "\(count)")
        let second = try ChildProcess.testHost("objects.write-range", file.path, "b", "\(count)")
        #expect(first.readAllLines() == ["ready", "written"])
        #expect(second.readAllLines() == ["ready", "written"])
        #expect(first.wait() == 0)
        #expect(second.wait() == 0)
        let store = try ObjectStore(url: file, schema: ObjectSchema(HostEntry.self))
        for writer in ["a", "b"] {
            let entries = try store.fetch(HostEntry.query().filter(\.writer == writer).sorted(\.index))
            #expect(entries.map(\.index) == Array(0..<count))
            #expect(entries.allSatisfy { $0.text == "\(writer) \($0.index)" })
        }
    }
}
