import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashPreferences

/// The suite's cross-process signal (Darwin notifications on Apple platforms), through the
/// fake notification center: a writer posts once its commit is done (the file lock released),
/// and an observing store listens while observed and wakes on a post.
struct ChangeSignalWiringTests {
    let folder = TemporaryFolder("prefs-signal")
    let fake = FakeChangeNotifier()

    func open(_ url: URL) throws -> Preferences {
        try ChangeNotifier.$current.withValue(fake.notifier) { try Preferences(url: url) }
    }

    @Test func aCommitPostsOnceTheFileLockIsReleased() async throws {
        let url = folder.file("settings.stashprefs")
        let name = ChangeSignal.name(for: url)
        let prefs = try open(url)
        // Suspended, each write releases the file lock before returning: the post is then done.
        prefs.suspend()
        try prefs.set(1, forKey: "a")
        #expect(fake.posts(of: name) == 1)
        _ = prefs.integer(forKey: "a")
        try prefs.set(2, forKey: "a")
        #expect(fake.posts(of: name) == 2)
        // Lingering, the burst's one post comes when the lock is let go.
        prefs.resume()
        for value in 3...10 { try prefs.set(value, forKey: "a") }
        #expect(await eventually { fake.posts(of: name) == 3 })
    }

    @Test func anObserverListensWhileObservedAndWakesOnAPost() async throws {
        let url = folder.file("shared.stashprefs")
        let name = ChangeSignal.name(for: url)
        let watching = try open(url)
        let writer = try open(url)
        #expect(fake.registrations(of: name) == 0)
        let task = Task { try await first(1, of: watching.changes(forKey: "theme")) }
        #expect(await eventually { fake.registrations(of: name) == 1 })
        writer.suspend()
        try writer.set("dark", forKey: "theme")
        let changes = try await task.value
        #expect(changes.map(\.key) == ["theme"])
        #expect(changes.first?.isFromOtherProcess == true)
        #expect(await eventually { fake.registrations(of: name) == 0 })
        #expect(fake.cancellations.count == 1)
    }
}
