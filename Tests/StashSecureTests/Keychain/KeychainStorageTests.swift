import Foundation
import StashCore
@testable import StashSecure
import Testing

/// A Keychain vault's queries, answers and errors, against ``FakeKeychain``.
struct KeychainStorageTests {
    let keychain = FakeKeychain()

    func storage(_ service: String = "com.example.app", group: String? = nil, accessibility: Vault.Accessibility = .afterFirstUnlock) -> KeychainStorage {
        KeychainStorage(service: service, accessGroup: group, accessibility: accessibility, calls: keychain)
    }

    /// A vault on the fake, through the public API (names normalized, values encoded).
    func vault(_ service: String = "com.example.app", group: String? = nil) -> Vault {
        Vault(service: service, accessGroup: group, storage: storage(service, group: group))
    }

    @Test func setGetRemoveAndRemoveAll() throws {
        let vault = vault()
        #expect(try vault.string(forKey: "token") == nil)
        try vault.set("one", forKey: "token")
        try vault.set("two", forKey: "token")
        try vault.set(Data([1, 2]), forKey: "key")
        #expect(try vault.string(forKey: "token") == "two")
        #expect(try vault.data(forKey: "key") == Data([1, 2]))
        #expect(try vault.allKeys == ["key", "token"])
        #expect(keychain.items.count == 2)

        try vault.removeValue(forKey: "token")
        try vault.removeValue(forKey: "token")          // not there: not an error
        #expect(try vault.string(forKey: "token") == nil)
        try vault.removeAll()
        try vault.removeAll()                           // empty: not an error
        #expect(try vault.allKeys == [])
        #expect(keychain.items.isEmpty)
    }

    @Test func anItemIsAGenericPasswordOfTheServiceInTheDataProtectionKeychain() throws {
        try storage(accessibility: .whenUnlocked).set(Data("v".utf8), forKey: "token")
        let expected: [String: String] = ["class": "genp", "svce": "com.example.app", "acct": "token", "pdmn": "ak"]
        let item = try #require(keychain.items.first)
        #expect(item.bridged.compactMapValues { $0 as? String } == expected)
        #expect(item.bridged["v_Data"] as? Data == Data("v".utf8))
        #expect(storage().serviceQuery()[.dataProtectionKeychain] == .bool(true))
    }

    /// A shared vault's items are named by the group, so that every member sees them.
    @Test func aSharedVaultUsesItsGroupAsServiceAndAccessGroup() throws {
        let group = "TEAMID.com.example.shared"
        try vault("com.example.app", group: group).set("s", forKey: "token")
        let item = try #require(keychain.items.first)
        #expect(item[.service] == .string(group))
        #expect(item[.accessGroup] == .string(group))
        #expect(try vault("com.example.widget", group: group).string(forKey: "token") == "s")
        #expect(try vault("com.example.widget").string(forKey: "token") == nil)
    }

    /// The values of Apple's `SecItemConstants.c`, one by one.
    @Test(arguments: [
        (Vault.Accessibility.whenUnlocked, "ak"), (.afterFirstUnlock, "ck"), (.whenUnlockedThisDeviceOnly, "aku"),
        (.afterFirstUnlockThisDeviceOnly, "cku"), (.whenPasscodeSetThisDeviceOnly, "akpu"),
    ])
    func accessibilityIsStoredOnAddAndOnUpdate(accessibility: Vault.Accessibility, constant: String) throws {
        try storage(accessibility: .afterFirstUnlock).set(Data("a".utf8), forKey: "token")
        try storage(accessibility: accessibility).set(Data("b".utf8), forKey: "token")
        #expect(keychain.items.map { $0[.accessible] } == [.string(constant)])
        try storage(accessibility: accessibility).set(Data("c".utf8), forKey: "other")
        #expect(keychain.items.last?[.accessible] == .string(constant))
    }

    /// Two first writes at once: the other writer adds between this one's update and add; the
    /// add finds a duplicate and the write becomes an update. Nothing is reported.
    @Test func aRacingFirstWriteIsRetriedAsAnUpdate() throws {
        let storage = storage()
        keychain.beforeNextAdd { [keychain] in
            keychain.insert(storage.itemQuery("token").merging(KeychainAttributes([.valueData: .data(Data("theirs".utf8)), .accessible: .string("ck")])))
        }
        try storage.set(Data("mine".utf8), forKey: "token")
        #expect(keychain.log == ["update", "add", "update"])
        #expect(try storage.data(forKey: "token") == Data("mine".utf8))
        #expect(keychain.items.count == 1)
    }

    @Test func aLockedDeviceIsALockedError() throws {
        let storage = storage()
        try storage.set(Data("v".utf8), forKey: "token")
        keychain.isLocked = true
        let calls: [() throws -> Void] = [
            { _ = try storage.data(forKey: "token") }, { try storage.set(Data(), forKey: "token") },
            { try storage.removeValue(forKey: "token") }, { _ = try storage.allKeys() }, { try storage.removeAll() },
        ]
        for call in calls {
            let error = try #require(throws: StashError.self, performing: call)
            #expect(error.code == .locked)
            #expect(error.reason.contains("the Keychain is locked"))
            #expect(error.reason.contains("-25308"))
        }
        keychain.isLocked = false
        #expect(try storage.data(forKey: "token") == Data("v".utf8))
    }

    /// Without the fallback (every platform but macOS), a missing entitlement is reported.
    @Test func aMissingEntitlementIsPermissionDenied() throws {
        keychain.isEntitled = false
        let error = try #require(throws: StashError.self) { try storage().set(Data(), forKey: "token") }
        #expect(error.code == .permissionDenied)
        #expect(error.key == "token")
        #expect(error.reason.contains("entitlement") && error.reason.contains("-34018"))
    }

    @Test func otherStatusesAreKeychainErrorsNamingTheCall() throws {
        keychain.answer("add", with: -25293)
        let error = try #require(throws: StashError.self) { try storage().set(Data(), forKey: "token") }
        #expect(error.code == .keychain)
        #expect(error.reason == "add: the user name or passphrase is not correct (OSStatus -25293)")
        keychain.answer("copy", with: -4)
        #expect(errorCode { _ = try storage().allKeys() } == .keychain)
    }

    @Test func keychainVaultsDoNotRotate() {
        #expect(errorCode { try storage().rotate(to: .keyFile()) } == .notSupported)
    }

    /// Linux never makes a Security call: its vault is a file, and nothing falls back.
    @Test func linuxHasNoKeychain() throws {
        #expect(Vault.platformKeychain == nil)
        #expect(Vault.keychainFallsBackToFile == false)
    }
}
