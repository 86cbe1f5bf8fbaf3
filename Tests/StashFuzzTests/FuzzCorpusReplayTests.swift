import Foundation
import StashTestSupport
import Testing

/// Every committed fuzz input (the seed corpora in `Fuzz/Corpus/` and the inputs of past
/// crashes in `Fuzz/Regressions/`) goes through its parser again in an ordinary build: a
/// parser that regresses on one of them crashes this child process and fails the test.
@Suite(.timeLimit(.minutes(3)))
struct FuzzCorpusReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz", isDirectory: true)

    @Test(arguments: ["Corpus", "Regressions"])
    func replaysCommittedInputs(folder: String) async throws {
        let directory = Self.fuzzFolder.appendingPathComponent(folder, isDirectory: true)
        let child = try ChildProcess(BuiltProducts.executable("StashFuzz"), ["replay", directory.path])
        let lines = await child.allLines()
        #expect(await child.exitStatus() == 0, "a committed input crashed its parser: \(child.standardError())")
        #expect(lines.last?.hasPrefix("replayed ") == true)
        if folder == "Corpus" {
            let count = Int(lines.last?.split(separator: " ")[1] ?? "") ?? 0
            #expect(count >= 30, "the seed corpora went missing")
        }
    }

    @Test func everyTargetHasASeedCorpus() async throws {
        let child = try ChildProcess(BuiltProducts.executable("StashFuzz"), ["list"])
        let targets = await child.allLines().compactMap { $0.split(separator: "\t").first.map(String.init) }
        #expect(await child.exitStatus() == 0)
        #expect(!targets.isEmpty)
        for target in targets {
            let seeds = (try? FileManager.default.contentsOfDirectory(
                atPath: Self.fuzzFolder.appendingPathComponent("Corpus/\(target)").path
            )) ?? []
            #expect(!seeds.isEmpty, "no seed corpus for \(target)")
        }
    }
}
