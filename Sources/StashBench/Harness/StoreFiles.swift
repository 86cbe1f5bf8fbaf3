import Foundation
import Stash
#if canImport(Glibc)
import Glibc
#endif

/// The files a store keeps under its folder, measured the same way for every contender:
/// their size on disk, how much of them sits in the page cache (`mincore`, whether the store
/// maps them or reads them with `pread`), and a way to drop them from it, so that a reopen
/// starts cold.
struct StoreFiles {
    let paths: [String]

    init(_ folder: URL) {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        var paths: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { paths.append(url.path) }
        }
        self.paths = paths.sorted()
    }

    /// The files' sizes, in bytes.
    func diskBytes() -> Int {
        paths.reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
    }

    /// Writes each file's dirty pages, then asks the system to drop its pages from the page
    /// cache (Linux; elsewhere nothing is dropped).
    func dropFromPageCache() throws {
        #if os(Linux)
        for path in paths {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard fdatasync(fd) == 0, posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED)) == 0 else {
                throw StashError(.io, "cannot drop a file from the page cache (errno \(errno))", path: path)
            }
        }
        #endif
    }

    /// The bytes of the files' pages in the page cache (Linux; elsewhere 0).
    func residentBytes() -> Int {
        var total = 0
        #if os(Linux)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        for path in paths {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_size > 0 else { continue }
            let size = Int(info.st_size)
            guard let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), mapping != MAP_FAILED else { continue }
            defer { munmap(mapping, size) }
            var vector = [UInt8](repeating: 0, count: (size + page - 1) / page)
            guard mincore(mapping, size, &vector) == 0 else { continue }
            total += vector.reduce(0) { $0 + Int($1 & 1) } * page
        }
        #endif
        return total
    }
}
