import Foundation
import Stash

extension Tour {
    @Sendable static func sandboxAndFiles(_ tour: Tour) async throws {
        let sandbox = tour.sandbox
        tour.say("A Sandbox names the app's folders; each is created on first use, owner-only (0700):")
        for folder in Sandbox.Folder.allCases {
            let url = try sandbox.url(for: folder)
            let backup = folder.isExcludedFromBackup ? "not backed up (CACHEDIR.TAG)" : "backed up"
            tour.say("  \(folder.rawValue): \(url.path)  [\(backup)]")
        }

        let group = try sandbox.groupContainer("group.com.example.tour")
        tour.say("groupContainer(\"group.com.example.tour\"): \(group.path)")
        tour.say("  (an app group: a folder the app shares with its extensions or sibling apps)")

        let note = sandbox.documents.appendingPathComponent("hello.txt")
        try FileStore.write(Data("Hello from the Stash tour.\n".utf8), to: note)
        tour.say("FileStore.write wrote hello.txt atomically (temporary file, fsync, rename, fsync of the folder).")
        tour.say("It holds \(try FileStore.size(of: note)) bytes; exists: \(FileStore.exists(note)).")

        let copy = sandbox.documents.appendingPathComponent("hello-renamed.txt")
        try FileStore.move(note, to: copy)
        tour.say("Moved it to hello-renamed.txt; Documents lists: \(try FileStore.list(sandbox.documents).joined(separator: ", ")).")

        let lock = try FileLock(url: sandbox.library.appendingPathComponent("tour.lock"))
        let held = try lock.tryLock(.exclusive)
        tour.say("FileLock (flock) on Library/tour.lock taken: \(held); other processes wait or get 'false' until it is released.")
        if held { lock.unlock() }

        tour.say("Allocated size of the sandbox: \(try FileStore.allocatedSize(ofFolder: sandbox.root ?? sandbox.documents)) bytes.")
        tour.say("On disk:")
        tour.showFiles(under: sandbox.root ?? sandbox.documents)
    }
}
