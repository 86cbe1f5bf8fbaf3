import Foundation
import StashCore
import StashTestSupport
import Testing

/// The cross-process "changed" signal and the watch that wakes on it, driven through the
/// fake notification center (`FakeChangeNotifier`): Darwin's calls sit behind that seam.
struct ChangeSignalTests {
    @Test func theNameIdentifiesTheResolvedFile() throws {
        let folder = TemporaryFolder("signal-name")
        let file = folder.file("settings.stashprefs")
        let name = ChangeSignal.name(for: file)
        #expect(name.hasPrefix("org.stash.changed."))
        #expect(name == ChangeSignal.name(for: folder.url.appendingPathComponent("./settings.stashprefs")))
        #expect(name != ChangeSignal.name(for: folder.file("other.stashprefs")))
        let link = folder.file("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: folder.url)
        #expect(ChangeSignal.name(for: link.appendingPathComponent("settings.stashprefs")) == name)
        // Before its folder exists too: the part that exists is resolved.
        let later = ChangeSignal.name(for: link.appendingPathComponent("new/log"))
        try FileManager.default.createDirectory(at: folder.file("new"), withIntermediateDirectories: false)
        #expect(later == ChangeSignal.name(for: folder.file("new/log")))
    }

    @Test func aPostWakesEveryObserverOfTheName() async throws {
        let fake = FakeChangeNotifier()
        let signal = ChangeSignal(file: URL(fileURLWithPath: "/tmp/a.sqlite"), notifier: fake.notifier)
        let woken = LockedValue(0)
        let subscription = try #require(signal.observe { woken.withLock { $0 += 1 } })
        #expect(fake.registrations(of: signal.name) == 1)
        signal.post()
        #expect(fake.posts(of: signal.name) == 1)
        #expect(await eventually { woken.withLock { $0 } == 1 })
        subscription.cancel()
        subscription.cancel()
        #expect(fake.registrations(of: signal.name) == 0)
        #expect(fake.cancellations.count == 1)
    }

    @Test func aReleasedSubscriptionCancels() throws {
        let fake = FakeChangeNotifier()
        let signal = ChangeSignal(file: URL(fileURLWithPath: "/tmp/b.sqlite"), notifier: fake.notifier)
        do {
            let subscription = signal.observe {}
            withExtendedLifetime(subscription) {
                #expect(fake.registrations(of: signal.name) == 1)
            }
        }
        #expect(fake.registrations(of: signal.name) == 0)
    }

    /// The watch looks at once on the signal, long before its poll would.
    @Test func theWatchLooksOnTheSignalAndStopsListening() async throws {
        let fake = FakeChangeNotifier()
        let signal = ChangeSignal(file: URL(fileURLWithPath: "/tmp/c.sqlite"), notifier: fake.notifier)
        let looks = LockedValue(0)
        let watch = ChangeWatch(signal: signal, interval: .seconds(3600)) { looks.withLock { $0 += 1 } }
        #expect(fake.registrations(of: signal.name) == 0)
        watch.start()
        watch.start()
        #expect(watch.isRunning)
        #expect(fake.registrations(of: signal.name) == 1)
        fake.deliver(signal.name)
        #expect(await eventually { looks.withLock { $0 } == 1 })
        watch.stop()
        #expect(!watch.isRunning)
        #expect(fake.registrations(of: signal.name) == 0)
    }

    #if os(Linux)
    /// Linux has no signal: posting does nothing, nothing registers, the polls do the work.
    @Test func linuxHasNoSignal() {
        let signal = ChangeSignal(file: URL(fileURLWithPath: "/tmp/d.sqlite"), notifier: .platform)
        signal.post()
        #expect(signal.observe {} == nil)
    }
    #endif
}
