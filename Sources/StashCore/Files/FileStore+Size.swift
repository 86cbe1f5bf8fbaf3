public import Foundation

extension FileStore {
    /// The size in bytes of a file's content.
    ///
    /// - throws: ``StashError/Code/notFound`` when it does not exist.
    public static func size(of url: URL) throws -> Int64 {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw StashError.posix("stat", path: url.path) }
        return Int64(info.st_size)
    }

    /// The bytes a folder tree takes on disk (allocated blocks, as `du` counts them), the
    /// folders themselves included. Symbolic links are counted, not followed. A missing
    /// folder takes 0 bytes.
    public static func allocatedSize(ofFolder url: URL) throws -> Int64 {
        var total: Int64 = 0
        try walk(url.path, total: &total)
        return total
    }

    private static func walk(_ path: String, total: inout Int64) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw StashError.posix("stat", path: path)
        }
        total += Int64(info.st_blocks) * 512
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return }
        let names: [String]
        do { names = try list(URL(fileURLWithPath: path)) } catch StashError.Code.notFound { return }
        for name in names { try walk(path + "/" + name, total: &total) }
    }
}
