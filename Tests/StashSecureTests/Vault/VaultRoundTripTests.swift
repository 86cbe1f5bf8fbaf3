import Foundation
import StashCore
import StashSecure
import StashTestSupport
import Testing

struct Credentials: Codable, Equatable {
    var user: String
    var password: String
}

struct VaultRoundTripTests {
    @Test func stringDataAndCodableRoundTrip() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set("s3cr3t", forKey: "token")
        try vault.set(Data([0, 1, 2, 255]), forKey: "raw")
        try vault.set(Credentials(user: "ada", password: "pw"), forKey: "login")
        #expect(try vault.string(forKey: "token") == "s3cr3t")
        #expect(try vault.data(forKey: "raw") == Data([0, 1, 2, 255]))
        #expect(try vault.value(Credentials.self, forKey: "login") == Credentials(user: "ada", password: "pw"))
        #expect(try vault.string(forKey: "missing") == nil)
        #expect(try vault.allKeys == ["login", "raw", "token"])
    }

    @Test func typedKeysReadAndWriteLikeUntypedCalls() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        let token = Vault.Key<String>("token")
        let raw = Vault.Key<Data>("raw")
        let login = Vault.Key<Credentials>("login")
        try vault.set("abc", for: token)
        try vault.set(Data([9]), for: raw)
        try vault.set(Credentials(user: "u", password: "p"), for: login)
        #expect(try vault[token] == "abc")
        #expect(try vault.string(forKey: "token") == "abc")
        #expect(try vault[raw] == Data([9]))
        #expect(try vault[login] == Credentials(user: "u", password: "p"))
        try vault.set(nil, for: token)
        #expect(try vault[token] == nil)
        try vault.removeValue(for: raw)
        #expect(try vault.allKeys == ["login"])
    }

    @Test func storingNilRemoves() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set("a", forKey: "k")
        try vault.set(nil as String?, forKey: "k")
        #expect(try vault.string(forKey: "k") == nil)
        try vault.set(Data([1]), forKey: "d")
        try vault.set(nil as Data?, forKey: "d")
        try vault.set("b", forKey: "e")
        try vault.removeValue(forKey: "e")
        try vault.removeValue(forKey: "never-there")
        #expect(try vault.allKeys.isEmpty)
    }

    @Test func wrongTypeIsATypeMismatch() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try vault.set(Data([0xFF, 0xFE]), forKey: "bytes")
        #expect(errorCode { _ = try vault.string(forKey: "bytes") } == .typeMismatch)
        #expect(errorCode { _ = try vault[Vault.Key<Credentials>("bytes")] } == .typeMismatch)
    }

    @Test func removeAllEmptiesTheVault() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        for index in 0..<5 { try vault.set("v\(index)", forKey: "k\(index)") }
        try vault.removeAll()
        #expect(try vault.allKeys.isEmpty)
        #expect(try fixture.vault().allKeys.isEmpty)
    }

    @Test func entriesPersistAcrossReopen() throws {
        let fixture = VaultFixture()
        try fixture.vault().set("kept", forKey: "token")
        try fixture.passphraseVault("pw", service: "other").set("also kept", forKey: "token")
        #expect(try fixture.vault().string(forKey: "token") == "kept")
        #expect(try fixture.passphraseVault("pw", service: "other").string(forKey: "token") == "also kept")
    }

    @Test func servicesAreSeparateButAGroupIsShared() throws {
        let fixture = VaultFixture()
        let first = try fixture.vault("com.example.one")
        let second = try fixture.vault("com.example.two")
        try first.set("one", forKey: "token")
        #expect(try second.string(forKey: "token") == nil)

        let sharedByFirst = try fixture.vault("com.example.one", group: "TEAM.com.example.shared")
        let sharedBySecond = try fixture.vault("com.example.two", group: "TEAM.com.example.shared")
        try sharedByFirst.set("shared secret", forKey: "session")
        #expect(try sharedBySecond.string(forKey: "session") == "shared secret")
        #expect(try sharedBySecond.allKeys == ["session"])
        #expect(try first.string(forKey: "session") == nil)
        try sharedBySecond.removeValue(forKey: "session")
        #expect(try sharedByFirst.string(forKey: "session") == nil)
    }

    @Test func badNamesAreRefused() throws {
        let fixture = VaultFixture()
        #expect(errorCode { _ = try fixture.vault("../escape") } == .invalidName)
        #expect(errorCode { _ = try fixture.vault("ok", group: "a/b") } == .invalidName)
        let vault = try fixture.vault()
        #expect(errorCode { try vault.set("x", forKey: "") } == .invalidKey)
        #expect(errorCode { _ = try vault.data(forKey: String(repeating: "k", count: 2000)) } == .invalidKey)
    }

    @Test func nothingIsCreatedBeforeTheFirstWrite() throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        #expect(try vault.string(forKey: "token") == nil)
        #expect(try vault.allKeys.isEmpty)
        #expect(!FileStore.exists(fixture.keyring.folder))
    }

    @Test func threadsOfOneProcessLoseNothing() async throws {
        let fixture = VaultFixture()
        let vault = try fixture.vault()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for index in 0..<10 { try vault.set("\(task).\(index)", forKey: "t\(task)-\(index)") }
                }
            }
            try await group.waitForAll()
        }
        #expect(try vault.allKeys.count == 40)
    }
}
