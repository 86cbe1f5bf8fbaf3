import ArgumentParser
import Foundation
import Stash

/// `--app ID` and `--root DIR`: which sandbox a command works in.
struct SandboxOptions: ParsableArguments {
    @Option(name: .long, help: "The application identifier (default: stash).")
    var app: String = "stash"

    @Option(name: .long, help: "Put every folder under this directory instead of the user's standard folders.")
    var root: String?

    func sandbox() throws -> Sandbox {
        if let root {
            return try Sandbox(root: URL(fileURLWithPath: root, isDirectory: true), app: app)
        }
        return try Sandbox(app: app)
    }
}
