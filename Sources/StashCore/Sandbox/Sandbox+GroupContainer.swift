public import Foundation

extension Sandbox {
    /// The shared container of an app group: a folder that several applications of one
    /// vendor can all open (the app-group idea).
    ///
    /// On Apple platforms it is the security application group's container, which needs the
    /// app-group entitlement. On Linux it is `$XDG_DATA_HOME/<group>`; in a
    /// `Sandbox(root:)`, `<root>/Shared/<group>`. Created on first use, owner-only.
    ///
    /// ```swift
    /// let shared = try sandbox.groupContainer("group.com.example.suite")
    /// ```
    ///
    /// - throws: ``StashError/Code/invalidName`` for a bad group name,
    ///   ``StashError/Code/permissionDenied`` when the app lacks the entitlement.
    public func groupContainer(_ group: String) throws -> URL {
        try Sandbox.groupContainer(group, base: groupsBase, system: Sandbox.systemGroupContainer)
    }

    /// The shared container of an app group as a sandbox: its folders are the container's
    /// `Library/Application Support`, `Library/Caches`, `Library/Preferences`, `Documents`
    /// and `tmp` (the layout iOS gives a group container), so that every store opens there
    /// as it would in the app's own sandbox, and the app and its extensions find it.
    ///
    /// ```swift
    /// let shared = try Sandbox.main.groupSandbox("group.com.example.app")
    /// let store = try ObjectStore("library", sandbox: shared, schema: schema)
    /// // <group container>/Library/Application Support/library.sqlite
    /// ```
    ///
    /// - throws: As ``groupContainer(_:)``.
    public func groupSandbox(_ group: String) throws -> Sandbox {
        try Sandbox(root: groupContainer(group), app: app)
    }

    /// The container of `group`: a folder in `base` when there is one (Linux, `root:`
    /// sandboxes), else the one `system` gives (Apple platforms, `nil` without the
    /// entitlement). Created on first use.
    package static func groupContainer(_ group: String, base: URL?, system: (String) -> URL?) throws -> URL {
        try Sandbox.validate(name: group, what: "group identifier")
        guard let url = base.map({ $0.appendingPathComponent(group, isDirectory: true) }) ?? system(group) else {
            throw StashError(.permissionDenied, "no container for this app group (missing app-group entitlement?)", key: group)
        }
        try FileStore.createFolder(url)
        return url
    }

    /// The app-group container the system keeps for `group`: Apple platforms only, and only
    /// with the app-group entitlement.
    static func systemGroupContainer(_ group: String) -> URL? {
        #if canImport(Darwin)
        return FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group)
        #else
        return nil
        #endif
    }
}
