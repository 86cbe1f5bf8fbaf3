import Foundation

#if STASH_FUZZ
// Built by Scripts/fuzz.sh with `-sanitize=fuzzer,address`: libFuzzer's own `main` drives
// this entry point; the environment names the target.
private let fuzzTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["STASH_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget.named(name) else {
        FileHandle.standardError.write(Data("stash-fuzz: set STASH_FUZZ_TARGET to one of: \(FuzzTarget.all.map(\.name).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
/// `stash-fuzz`: the parsers of untrusted bytes, for libFuzzer and for replaying corpora.
///
///     stash-fuzz list                       the targets (name, summary, and `peer` for a peer's parser)
///     stash-fuzz seed DIR                   writes each target's seed inputs to DIR/<target>/
///     stash-fuzz replay DIR [TARGET...]     runs every file of DIR/<target>/ through its target
///
/// Fuzzing itself needs a build with libFuzzer: `Scripts/fuzz.sh [seconds] [target...]`.
@main
enum StashFuzz {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            switch arguments.first {
            case "list":
                for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)" + (target.isPeer ? "\tpeer" : "")) }
            case "seed" where arguments.count == 2:
                try seed(into: URL(fileURLWithPath: arguments[1], isDirectory: true))
            case "replay" where arguments.count >= 2:
                let names = arguments.count > 2 ? Array(arguments[2...]) : FuzzTarget.all.map(\.name)
                try replay(URL(fileURLWithPath: arguments[1], isDirectory: true), targets: names)
            default:
                FileHandle.standardError.write(Data("usage: stash-fuzz list | seed DIR | replay DIR [TARGET...]\n".utf8))
                exit(64)
            }
        } catch {
            FileHandle.standardError.write(Data("stash-fuzz: \(error)\n".utf8))
            exit(1)
        }
    }

    static func seed(into folder: URL) throws {
        for target in FuzzTarget.all {
            let directory = folder.appendingPathComponent(target.name, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (index, seed) in try target.seeds().enumerated() {
                try seed.write(to: directory.appendingPathComponent("seed-\(index)"))
            }
        }
    }

    static func replay(_ folder: URL, targets names: [String]) throws {
        var count = 0
        for name in names {
            guard let target = FuzzTarget.named(name) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no target '\(name)'"])
            }
            let directory = folder.appendingPathComponent(name, isDirectory: true)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for file in files.sorted() {
                let data = try Data(contentsOf: directory.appendingPathComponent(file))
                data.withUnsafeBytes { target.run($0) }
                count += 1
            }
        }
        print("replayed \(count) inputs")
    }
}
#endif
