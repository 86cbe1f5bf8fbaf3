import Foundation
import StashCore
import StashObjects
import StashTestSupport
import Testing

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
@Suite(.timeLimit(.minutes(5)))
struct ObjectStoreProcessTests {
    /// Each round writes batches numbered from `round * 1000`, so that a batch an earlier
    /// round committed cannot stand in for one this round acknowledged and lost.
    @Test func aKilledWriterLosesNoCommittedTransactionAndLeavesNoPartialOne() throws {
        let folder = TemporaryFolder("objects-crash")
        let file = folder.file("crash.sqlite")
        let size = 2000
        for round in 0..<3 {
            let first = round * 1000
            let child = try ChildProcess.testHost("objects.write-loop", file.path, "\(size)", "\(first)")
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
            #expect(acknowledged.count >= target)
            #expect(acknowledged.allSatisfy { $0 >= first && $0 < first + 1000 })
            for batch in acknowledged { #expect(counts[batch] == size, "round \(round): acknowledged batch \(batch) holds \(counts[batch] ?? 0) entries") }
            #expect(counts.values.allSatisfy { $0 == size }, "a partial or repeated transaction survived: \(counts)")
            try store.close()
        }
    }

    /// Both children open the store, then start together behind a barrier and write 1,000
    /// transactions each: their writing windows must overlap (each contended with the other
    /// for SQLite's write lock), and nothing is lost. Whether their rows interleave is up to
    /// SQLite's lock, which is not fair: a busy machine may let one writer take every turn.
    @Test func twoProcessesWritingTheSameStoreLoseNothing() throws {
        let folder = TemporaryFolder("objects-two")
        let file = folder.file("shared.sqlite")
        try ObjectStore(url: file, schema: ObjectSchema(HostEntry.self)).close()
        let count = 1000
        let barrier = StartBarrier(in: folder)
        let children = try ["a", "b"].map { try ChildProcess.testHost("objects.write-range", file.path, $0, "\(count)", barrier.path) }
        for child in children { #expect(child.readLine() == "ready") }
        try barrier.release()
        var windows: [(start: UInt64, end: UInt64)] = []
        for child in children {
            let lines = child.readAllLines()
            let fields = lines.first?.split(separator: " ") ?? []
            #expect(lines.count == 1 && fields.first == "written", "\(lines)")
            if fields.count == 3, let start = UInt64(fields[1]), let end = UInt64(fields[2]) { windows.append((start, end)) }
            #expect(child.wait() == 0, "child failed: \(child.standardError())")
        }
        try #require(windows.count == 2)
        #expect(windows[0].start < windows[1].end && windows[1].start < windows[0].end, "the two writers ran one after the other, so the test proved nothing: \(windows)")
        let store = try ObjectStore(url: file, schema: ObjectSchema(HostEntry.self))
        var identifiers: [String: [Int64]] = [:]
        for writer in ["a", "b"] {
            let entries = try store.fetch(HostEntry.query().filter(\.writer == writer).sorted(\.index))
            #expect(entries.map(\.index) == Array(0..<count))
            #expect(entries.allSatisfy { $0.text == "\(writer) \($0.index)" })
            identifiers[writer] = entries.compactMap(\.id)
        }
        let (a, b) = (identifiers["a"] ?? [], identifiers["b"] ?? [])
        let interleaved = (a.min() ?? 0) < (b.max() ?? 0) && (b.min() ?? 0) < (a.max() ?? 0)
        print("twoProcessesWritingTheSameStoreLoseNothing: rows \(interleaved ? "interleaved" : "in two runs")")
        try store.close()
    }
}
