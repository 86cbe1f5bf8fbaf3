import Foundation

/// One entry of a folder tree as the explorer sees it: a folder, or a file by its inode.
enum SnapshotEntry: Hashable, Sendable {
    case folder
    case file(inode: UInt64)
}

/// The names and file contents under a root folder at one moment, read with the C library
/// and Foundation only (never through the package's I/O seam, which the explorer observes).
struct FolderSnapshot {
    /// Every entry under the root, by its path relative to the root (`values/00000001.log`).
    var names: [String: SnapshotEntry] = [:]
    /// The bytes of every file, by inode.
    var contents: [UInt64: Data] = [:]
    /// The permission bits of every file, by inode.
    var modes: [UInt64: mode_t] = [:]

    /// Reads the tree under `root`; symbolic links and special files are left out.
    static func read(_ root: String) -> FolderSnapshot {
        var snapshot = FolderSnapshot()
        snapshot.scan(root, relative: "")
        return snapshot
    }

    private mutating func scan(_ folder: String, relative: String) {
        guard let children = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for child in children.sorted() {
            let path = folder + "/" + child
            let name = relative.isEmpty ? child : relative + "/" + child
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                names[name] = .folder
                scan(path, relative: name)
            case S_IFREG:
                let inode = UInt64(info.st_ino)
                names[name] = .file(inode: inode)
                modes[inode] = info.st_mode & 0o7777
                if contents[inode] == nil { contents[inode] = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() }
            default:
                continue
            }
        }
    }

    /// The inode of the file at `path` (absolute), if it is one.
    static func inode(of path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return UInt64(info.st_ino)
    }
}
