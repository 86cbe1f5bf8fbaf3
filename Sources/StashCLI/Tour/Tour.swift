import Foundation
import Stash

/// The context a tour step runs in: the sandbox and a way to print.
final class Tour: Sendable {
    struct Step: Sendable {
        var title: String
        var run: @Sendable (Tour) async throws -> Void
    }

    /// Every step, in order. Each capability adds its own in a `Tour+<Capability>.swift` file.
    static let steps: [Step] = [
        Step(title: "Sandbox and files", run: Tour.sandboxAndFiles),
        Step(title: "Property lists and archives", run: Tour.propertyListsAndArchives),
        Step(title: "SQL databases", run: Tour.databases),
        Step(title: "Object store", run: Tour.objects),
        Step(title: "Memory caches, pools and queues", run: Tour.memoryCaches),
        Step(title: "Disk, hybrid and business caches", run: Tour.caches),
        Step(title: "Preferences", run: Tour.preferences),
        Step(title: "Secure storage", run: Tour.secureStorage),
        Step(title: "HTTP cache", run: Tour.httpCache),
        Step(title: "Caching proxy", run: Tour.cachingProxy),
        Step(title: "Cookies", run: Tour.cookies),
        Step(title: "Shared cache on PostgreSQL", run: Tour.sharedCache),
    ]

    let sandbox: Sandbox
    /// Whether the sandbox outlives the tour (`--root`); hints name its folders only then.
    let keepsFiles: Bool

    init(sandbox: Sandbox, keepsFiles: Bool) {
        self.sandbox = sandbox
        self.keepsFiles = keepsFiles
    }

    /// A command to try on `folder` afterwards, or how to keep the folder when the sandbox
    /// is removed at the end of the tour.
    func hint(_ command: String, folder: URL) {
        if keepsFiles {
            say("Try: \(command) \(folder.path)")
        } else {
            say("Try: stash tour --root DIR, then \(command) DIR/\(relativePath(of: folder))")
        }
    }

    /// `url`'s path relative to the sandbox root.
    func relativePath(of url: URL) -> String {
        guard let base = sandbox.root?.path, url.path.hasPrefix(base + "/") else { return url.path }
        return String(url.path.dropFirst(base.count + 1))
    }

    func section(_ title: String) {
        print("\n== \(title) ==")
    }

    func say(_ line: String) {
        print("  " + line)
    }

    /// Prints the files under `folder` with their sizes, relative to the sandbox root.
    func showFiles(under folder: URL) {
        let base = sandbox.root?.path ?? folder.path
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return }
        for case let relative as String in enumerator {
            let url = folder.appendingPathComponent(relative)
            guard !FileStore.isFolder(url) else { continue }
            let size = (try? FileStore.size(of: url)) ?? 0
            let shown = url.path.hasPrefix(base) ? String(url.path.dropFirst(base.count + 1)) : url.path
            say("  \(shown)  (\(size) bytes)")
        }
    }
}
