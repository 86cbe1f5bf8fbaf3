import Foundation
import StashCore
@testable import StashSecure
import StashTestSupport
import Testing

/// A file vault's cross-process signal (Darwin notifications on Apple platforms), through
/// the fake notification center: each change through the vault posts it, and an observed
/// entry listens while it lives and reads again on a post.
struct ChangeSignalWiringTests {
    let fixture = VaultFixture()
    let fake = FakeChangeNotifier()

    func vault() throws -> Vault {
        try ChangeNotifier.$current.withValue(fake.notifier) { try fixture.vault() }
    }

    @Test func eachChangePosts() throws {
        let vault = try vault()
        let name = ChangeSignal.name(for: try #require(vault.file))
        try vault.set("a", forKey: "token")
        #expect(fake.posts(of: name) == 1)
        try vault.removeValue(forKey: "token")
        try vault.removeAll()
        #expect(fake.posts(of: name) == 3)
        _ = try vault.data(forKey: "token")
        #expect(fake.posts(of: name) == 3)
    }

    @Test func anObservedEntryListensWhileItLivesAndReadsAgainOnAPost() async throws {
        let vault = try vault()
        let name = ChangeSignal.name(for: try #require(vault.file))
        do {
            let entry = vault.observed(Vault.Key<String>("token"))
            #expect(fake.registrations(of: name) == 1)
            let firings = ObservationFirings { _ = entry.value }
            try fixture.vault().set("from elsewhere", forKey: "token")  // no post: only the file changed
            fake.deliver(name)
            #expect(await eventually { firings.count > 0 && entry.value == "from elsewhere" })
        }
        #expect(fake.registrations(of: name) == 0)
    }
}
