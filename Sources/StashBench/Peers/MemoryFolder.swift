import Foundation

/// A folder on tmpfs (`/dev/shm`) for a proxy's cache, so that every proxy's disk cache
/// lives in memory the same way: nginx's documentation recommends it for speed, and Stash's
/// cache gets the same. `nil` where there is no writable `/dev/shm` (the caller's folder is
/// used then, for every proxy alike).
enum MemoryFolder {
    /// A new empty folder on tmpfs for `name`, or `nil`.
    static func make(_ name: String, port: Int) throws -> URL? {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        guard FileManager.default.isWritableFile(atPath: shm.path) else { return nil }
        let folder = shm.appendingPathComponent("stash-bench-\(name)-\(getpid())-\(port)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
