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
        try Sandbox.validate(name: group, what: "group identifier")
        let url: URL
        if let groupsBase {
            url = groupsBase.appendingPathComponent(group, isDirectory: true)
        } else {
            #if canImport(Darwin)
            guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else {
                throw StashError(.permissionDenied, "no container for this app group (missing entitlement?)", key: group)
            }
            url = container
            #else
            throw StashError(.notFound, "group containers are not available here", key: group)
            #endif
        }
        try FileStore.createFolder(url)
        return url
    }
}
