import Foundation

/// A start barrier for multi-process tests: children passed ``path`` report "ready", then
/// wait until the file exists (the test host's `awaitStart`); ``release()`` creates it, so
/// that every child starts its work at the same moment and their writes overlap.
///
/// ```swift
/// let barrier = StartBarrier(in: folder)
/// let children = try ["a", "b"].map { try ChildProcess.testHost("objects.write-range", file, $0, "1000", barrier.path) }
/// for child in children { #expect(child.readLine() == "ready") }
/// try barrier.release()
/// ```
public struct StartBarrier: Sendable {
    /// The file whose creation releases the children.
    public let path: String

    /// A barrier in `folder` (not yet released).
    public init(in folder: TemporaryFolder) {
        path = folder.file("start-barrier-\(UUID().uuidString)").path
    }

    /// Releases every child waiting on the barrier.
    ///
    /// - throws: the error of creating the file.
    public func release() throws {
        try Data().write(to: URL(fileURLWithPath: path))
    }
}
