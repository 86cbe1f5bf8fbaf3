import Foundation
import StashCore
import StashTestSupport
import Testing

/// How a group container is found, with the system's lookup (Apple platforms) replaced by a
/// function: a folder of the sandbox when it has one, the system's container otherwise, and a
/// typed error when the system has none (a missing app-group entitlement).
struct GroupContainerTests {
    let folder = TemporaryFolder("groups")

    @Test func aSandboxWithAGroupsFolderNeverAsksTheSystem() throws {
        let url = try Sandbox.groupContainer("group.com.example", base: folder.url) { _ in
            Issue.record("the system was asked")
            return nil
        }
        #expect(url.path == folder.url.appendingPathComponent("group.com.example").path)
        #expect(FileStore.isFolder(url))
    }

    @Test func otherwiseTheSystemsContainerIsUsedAndCreated() throws {
        let container = folder.url.appendingPathComponent("Containers/Shared/AppGroup/UUID", isDirectory: true)
        var asked: [String] = []
        let url = try Sandbox.groupContainer("group.com.example", base: nil) { group in
            asked.append(group)
            return container
        }
        #expect(asked == ["group.com.example"])
        #expect(url == container)
        #expect(FileStore.isFolder(container))
    }

    @Test func noContainerIsAMissingEntitlement() throws {
        let error = try #require(throws: StashError.self) { try Sandbox.groupContainer("group.com.example", base: nil) { _ in nil } }
        #expect(error.code == .permissionDenied)
        #expect(error.key == "group.com.example")
        #expect(error.reason.contains("entitlement"))
    }

    @Test func aBadGroupNameIsRefusedBeforeAnyLookup() throws {
        let error = try #require(throws: StashError.self) {
            try Sandbox.groupContainer("../escape", base: folder.url) { _ in folder.url }
        }
        #expect(error.code == .invalidName)
        #expect(!FileStore.exists(folder.url.deletingLastPathComponent().appendingPathComponent("escape")))
    }

    /// The group's sandbox has the container's iOS layout, so that two processes opening a
    /// store there by name reach one file, and it keeps the app's identifier.
    @Test func aGroupSandboxLaysOutTheContainerLikeAnApp() throws {
        let sandbox = try Sandbox(root: folder.url.appendingPathComponent("app"), app: "com.example.app")
        let shared = try sandbox.groupSandbox("group.com.example")
        let container = try sandbox.groupContainer("group.com.example")
        #expect(shared.root?.path == container.path)
        #expect(shared.app == "com.example.app")
        #expect(shared.applicationSupport.path == container.appendingPathComponent("Library/Application Support").path)
        #expect(shared.caches.path == container.appendingPathComponent("Library/Caches").path)
        #expect(shared.documents.path == container.appendingPathComponent("Documents").path)
        #expect(try sandbox.groupSandbox("group.com.example").applicationSupport == shared.applicationSupport)
        #expect(throws: StashError.self) { try sandbox.groupSandbox("../escape") }
    }
}
