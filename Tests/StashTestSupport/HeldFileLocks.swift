public import Foundation

/// The file locks this process holds, from Linux's `/proc/locks`: for tests that promise a
/// store holds none while idle (an iOS app suspended with a lock in a shared container is
/// terminated).
public enum HeldFileLocks {
    /// Whether `/proc/locks` can be read here.
    public static var isAvailable: Bool { FileManager.default.isReadableFile(atPath: "/proc/locks") }

    /// One lock: `flock` or POSIX (`fcntl`), its mode and byte range.
    public struct Lock: Sendable, Hashable, CustomStringConvertible {
        public var kind: String
        public var mode: String
        public var start: String
        public var end: String
        public var description: String { "\(kind) \(mode) \(start)-\(end)" }
    }

    /// The locks this process holds on `file` (found by its inode).
    public static func on(_ file: URL) throws -> [Lock] {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        guard let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value else { return [] }
        let ours = String(getpid())
        // Read to the end: procfs reports a size of 0, and a reader that trusts the size
        // stops after the first page, which misses locks once the process holds many.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/locks"))
        defer { try? handle.close() }
        let table = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        return table.split(separator: "\n").compactMap { line -> Lock? in
            // "1: POSIX  ADVISORY  READ 4242 00:2c:1234 123 123"
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, fields[4] == ours, UInt64(fields[5].split(separator: ":").last ?? "") == inode else { return nil }
            return Lock(kind: String(fields[1]), mode: String(fields[3]), start: String(fields[6]), end: String(fields[7]))
        }
    }

    /// The locks this process holds on `file` but for the read locks SQLite's WAL mode keeps
    /// for every open connection, which block no reader and no writer: the shared lock on a
    /// database file (bytes 1073741826-1073742335, SQLite's SHARED range) and the "dead man
    /// switch" byte (128) of a `-shm` file. What is left is a transaction's or a writer's lock.
    public static func beyondOpenSQLiteConnections(on file: URL) throws -> [Lock] {
        try on(file).filter { lock in
            let sharedRange = lock.start == "1073741826" && lock.end == "1073742335"
            let deadManSwitch = lock.start == "128" && lock.end == "128"
            return !(lock.kind == "POSIX" && lock.mode == "READ" && (sharedRange || deadManSwitch))
        }
    }
}
