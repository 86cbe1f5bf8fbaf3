public import Foundation
import StashCore

/// A ``/StashCore/Sandbox`` in a fresh temporary folder, deleted when the value is released: every
/// store your tests open in it starts empty and leaves nothing behind in the real home
/// folder.
///
/// ```swift
/// import StashTesting
/// import Testing
///
/// @Test func remembersTheVolume() throws {
///     let temporary = try TemporarySandbox()
///     let prefs = try Preferences(suite: "com.example.app", sandbox: temporary.sandbox)
///     try prefs.set(0.8, forKey: "volume")
///     #expect(prefs.double(forKey: "volume") == 0.8)
/// }
/// ```
///
/// Pair it with ``/StashCore/ManualClock`` so that expiry is tested without sleeping.
public final class TemporarySandbox: Sendable {
    /// The sandbox, rooted in ``root``.
    public let sandbox: Sandbox
    /// The temporary folder; removed with everything in it on release.
    public let root: URL

    /// Creates the folder under the system's temporary folder (`$TMPDIR`).
    ///
    /// - parameters:
    ///   - app: The application identifier of the sandbox.
    ///   - label: A word in the folder's name, to recognise it while debugging.
    /// - throws: `StashError(.invalidName)` for an unsafe identifier, or the error of
    ///   creating the folder.
    public init(app: String = "com.example.tests", label: String = "test") throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("stash-\(label)-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw StashError(.io, "cannot create a temporary folder: \(error)", path: root.path)
        }
        self.root = root
        self.sandbox = try Sandbox(root: root.appendingPathComponent("sandbox", isDirectory: true), app: app)
    }

    deinit { try? FileManager.default.removeItem(at: root) }
}
