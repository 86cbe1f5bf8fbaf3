import ArgumentParser
import Foundation
import Stash

/// `stash paths`: where a sandbox's folders are.
struct PathsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paths",
        abstract: "Print the folders of an application's sandbox (nothing is created)."
    )

    @OptionGroup var options: SandboxOptions

    func run() throws {
        let sandbox = try options.sandbox()
        let width = Sandbox.Folder.allCases.map(\.rawValue.count).max() ?? 0
        for folder in Sandbox.Folder.allCases {
            let name = folder.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
            let backup = folder.isExcludedFromBackup ? "  (not backed up)" : ""
            print("\(name)  \(sandbox.path(for: folder).path)\(backup)")
        }
    }
}
