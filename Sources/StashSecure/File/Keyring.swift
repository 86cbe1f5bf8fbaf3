public import Foundation
public import StashCore

/// The folder where encrypted vault files and the master key live (Linux, and any platform
/// that asks for file vaults).
///
/// It sits outside every application's own folders, so deleting an app's data (its
/// ``/StashCore/Sandbox``) does not delete its secrets, the way the Keychain outlives an app:
///
/// | what | where |
/// |---|---|
/// | private vault of a service | `<folder>/services/<service>.vault` |
/// | shared vault of an access group | `<folder>/groups/<group>.vault` |
/// | master key (key-file mode) | `<folder>/master.key` |
/// | lock files | `<folder>/services/<service>.vault.lock`, … |
///
/// The default folder is `$XDG_DATA_HOME/keyrings/stash` (`~/.local/share/keyrings/stash`).
/// Folders are created owner-only (0700), files owner-only (0600).
///
/// ```swift
/// let user = Keyring()                                           // the user's keyring
/// let test = Keyring(folder: URL(fileURLWithPath: "/tmp/t/keyring"))   // for tests
/// let vault = try Vault(service: "com.example.notes", keyring: test, key: .keyFile())
/// ```
///
/// `Keyring` is a value; it is safe to share between threads.
public struct Keyring: Sendable, Hashable, CustomStringConvertible {
    /// The keyring folder.
    public let folder: URL

    /// A keyring in `folder` (tests, portable installs, servers).
    public init(folder: URL) {
        self.folder = folder.standardizedFileURL
    }

    /// The user's keyring, `$XDG_DATA_HOME/keyrings/stash`, read from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let xdg = XDGDirectories(environment: environment)
        self.init(folder: xdg.dataHome.appendingPathComponent("keyrings/stash", isDirectory: true))
    }

    /// The keyring of a sandbox made with `Sandbox(root:)`: `<root>/keyrings/stash`, beside the
    /// app's folders but outside them. For a system sandbox, the user's keyring.
    public init(for sandbox: Sandbox, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let root = sandbox.root {
            self.init(folder: root.appendingPathComponent("keyrings/stash", isDirectory: true))
        } else {
            self.init(environment: environment)
        }
    }

    /// Where the default master key file is.
    package var masterKeyFile: URL { folder.appendingPathComponent("master.key") }

    /// The vault file of a service, or of an access group when `accessGroup` is set.
    public func vaultFile(service: String, accessGroup: String?) -> URL {
        if let accessGroup {
            return folder.appendingPathComponent("groups/\(accessGroup).vault")
        }
        return folder.appendingPathComponent("services/\(service).vault")
    }

    public var description: String { "Keyring(\(folder.path))" }
}
