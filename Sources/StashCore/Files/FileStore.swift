public import Foundation

/// File helpers that every Stash store is built on: atomic writes, reads, existence,
/// deletion, moves, listings and sizes.
///
/// Every function is thread-safe: each is a short sequence of system calls on paths, and an
/// atomic write goes through its own uniquely named temporary file, so concurrent writers to
/// one file never interleave: the last rename wins and the file is always one whole version.
///
/// ```swift
/// let url = try sandbox.url(for: .documents).appendingPathComponent("notes.txt")
/// try FileStore.write(Data("hello".utf8), to: url)      // atomic and durable
/// let data = try FileStore.read(url)
/// try FileStore.delete(url)
/// ```
public enum FileStore {
    /// Reads a whole file.
    ///
    /// - throws: ``StashError`` with ``StashError/Code/notFound`` when the file is missing,
    ///   ``StashError/Code/permissionDenied`` or ``StashError/Code/io`` otherwise.
    public static func read(_ url: URL) throws -> Data {
        try read(atPath: url.path)
    }

    /// Reads a whole file named by its path, for hot paths that keep paths rather than URLs
    /// (building a `URL` costs microseconds on Linux).
    ///
    /// - throws: as ``read(_:)``.
    public static func read(atPath path: String) throws -> Data {
        let fd = SystemCalls.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StashError.posix("open", path: path) }
        defer { SystemCalls.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StashError.posix("stat", path: path) }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw StashError(.io, "is a folder, not a file", path: path, errno: EISDIR)
        }
        // Files are replaced by rename, never grown in place, so the size fstat saw is the
        // size to read; a file cut short meanwhile is returned as far as it goes.
        return try read(descriptor: fd, range: 0..<Int(info.st_size), path: path)
    }

    /// Reads `range` of the open file `descriptor` into one buffer that the returned `Data`
    /// takes over: `pread` until the range is read or the file ends (the `Data` is shorter
    /// then), reads that a signal interrupted (`EINTR`) tried again. The file position is
    /// not used, so readers of one descriptor do not disturb each other.
    ///
    /// ```swift
    /// let part = try FileStore.read(descriptor: handle.fileDescriptor, range: 0..<65_536)
    /// ```
    ///
    /// - throws: ``StashError`` for the failing read (``StashError/Code/io`` mostly), naming
    ///   `path` when given.
    package static func read(descriptor: Int32, range: Range<Int>, path: String? = nil) throws -> Data {
        let size = range.count
        // Left uninitialised: the read fills it, and zeroing a large value first is a
        // measurable part of a cache hit.
        guard let bytes = malloc(max(size, 1)) else {
            throw StashError(.io, "out of memory for \(size) bytes", path: path, errno: ENOMEM)
        }
        var total = 0
        while total < size {
            let n = SystemCalls.pread(descriptor, bytes + total, size - total, at: range.lowerBound + total)
            if n < 0 {
                if errno == EINTR { continue }
                // Built before `free`, which may change `errno`.
                let error = StashError.posix("read", path: path)
                free(bytes)
                throw error
            }
            if n == 0 { break }
            total += n
        }
        return Data(bytesNoCopy: bytes, count: total, deallocator: .free)
    }

    /// Whether a file or folder exists at `url` (symbolic links are not followed).
    public static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    /// Whether a folder exists at `url`.
    public static func isFolder(_ url: URL) -> Bool {
        var info = stat()
        return stat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Deletes a file, or a folder with everything in it. Deleting what does not exist is
    /// not an error.
    public static func delete(_ url: URL) throws {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) != S_IFDIR {
            guard SystemCalls.unlink(url.path) == 0 || errno == ENOENT else { throw StashError.posix("unlink", path: url.path) }
            return
        }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            if !exists(url) { return }
            throw StashError(.io, "delete failed: \(error.localizedDescription)", path: url.path)
        }
    }

    /// Moves a file or folder, replacing a file at the destination atomically (rename(2)).
    /// Both places must be on the same file system.
    public static func move(_ source: URL, to destination: URL) throws {
        guard SystemCalls.rename(source.path, destination.path) == 0 else {
            throw StashError.posix("rename to \(destination.path)", path: source.path)
        }
    }

    /// The names of the entries of a folder, sorted, without `.` and `..`.
    public static func list(_ folder: URL) throws -> [String] {
        let path = folder.path
        guard let dir = opendir(path) else { throw StashError.posix("opendir", path: path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Creates a folder and any missing parents with owner-only permissions (0700).
    /// An existing folder is left as it is. The folder holding each one created is synced
    /// (an `fsync` of the folder), so that a power cut cannot take back a folder, and the files
    /// written power-safe into it, once this returned.
    public static func createFolder(_ url: URL, permissions: mode_t = 0o700) throws {
        let path = url.standardizedFileURL.path
        if isFolder(url) { return }
        var current = ""
        var created: [String] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            let parent = current.isEmpty ? "/" : current
            current += "/" + component
            if mkdir(current, permissions) == 0 {
                created.append(parent)
            } else if errno != EEXIST {
                throw StashError.posix("mkdir", path: current)
            }
        }
        for parent in created { try syncFolder(parent) }
        guard isFolder(url) else {
            throw StashError(.io, "exists and is not a folder", path: path, errno: ENOTDIR)
        }
    }
}
