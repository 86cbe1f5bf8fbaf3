public import Foundation
import StashCore

/// A fresh folder under the system's temporary folder, deleted when this value is released.
/// Every test works in one, so that nothing touches the real home folder.
public final class TemporaryFolder: @unchecked Sendable {
    public let url: URL

    public init(_ label: String = "test") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("stash-\(label)-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A path inside the folder.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// A sandbox rooted in this folder.
    public func sandbox(app: String = "com.example.tests") -> Sandbox {
        try! Sandbox(root: url.appendingPathComponent("sandbox", isDirectory: true), app: app)
    }
}
