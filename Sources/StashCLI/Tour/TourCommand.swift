import ArgumentParser
import Foundation
import Stash

/// `stash tour`: the main job. Walks through every capability on a sandbox and shows what
/// lands on disk.
struct TourCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tour",
        abstract: "Walk through every Stash capability on a temporary sandbox, showing what lands on disk."
    )

    @Option(name: .long, help: "Keep the sandbox in this directory instead of a temporary one.")
    var root: String?

    func run() async throws {
        let folder: URL
        let temporary = root == nil
        if let root {
            folder = URL(fileURLWithPath: root, isDirectory: true)
        } else {
            folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("stash-tour-\(UInt32.random(in: 0...UInt32.max))", isDirectory: true)
        }
        let tour = try Tour(sandbox: Sandbox(root: folder, app: "com.example.tour"), keepsFiles: !temporary)
        defer { if temporary { try? FileStore.delete(folder) } }

        for step in Tour.steps {
            tour.section(step.title)
            try await step.run(tour)
        }
        tour.section("Done")
        if temporary {
            tour.say("The temporary sandbox at \(folder.path) is removed now; pass --root DIR to keep it.")
        } else {
            tour.say("Everything is kept under \(folder.path).")
        }
    }
}
