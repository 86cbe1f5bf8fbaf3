import Foundation
import GRDBSQLite
import StashCore

/// A SQLite VFS that wraps the default `unix` one and tells the ``FaultInjection`` observers
/// (the crash explorer) about SQLite's own file calls: each write, truncate, sync and delete
/// of a database, journal or WAL file. SQLite's crash tests wrap their VFS the same way.
///
/// ``install()`` makes it the default VFS of the test process, once; every connection opened
/// after that (GRDB's, and the C API's) goes through it. Unobserved, a call costs a flag
/// load. A sync of a journal or WAL the open created is also the sync of its folder, as the
/// unix VFS does.
public enum ObservedSQLite {
    /// Makes the observing VFS the default one; idempotent, thread-safe.
    public static func install() { _ = installed }

    private static let installed: Bool = {
        guard let unix = sqlite3_vfs_find("unix") else { fatalError("SQLite has no unix VFS") }
        base = unix
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: unix.pointee)
        vfs.pointee.zName = UnsafePointer(strdup("stash-observed"))
        vfs.pointee.pNext = nil
        vfs.pointee.szOsFile = Int32(headerSize) + unix.pointee.szOsFile
        vfs.pointee.xOpen = observedOpen
        vfs.pointee.xDelete = observedDelete
        methods.initialize(to: forwardingMethods())
        guard sqlite3_vfs_register(vfs, 1) == SQLITE_OK else { fatalError("cannot register the observed VFS") }
        return true
    }()

    /// Our part of each file: the `sqlite3_file` header (our methods) and the file's facts;
    /// the unix VFS's own file follows it.
    fileprivate static let headerSize = 16
    nonisolated(unsafe) fileprivate static var base: UnsafeMutablePointer<sqlite3_vfs>!
    nonisolated(unsafe) fileprivate static let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
}

/// What the VFS remembers of an open file.
private final class ObservedFile {
    let path: String?
    var created: Bool
    init(path: String?, created: Bool) {
        self.path = path
        self.created = created
    }
}

private func real(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file> {
    UnsafeMutableRawPointer(file!).advanced(by: ObservedSQLite.headerSize).assumingMemoryBound(to: sqlite3_file.self)
}

private func facts(_ file: UnsafeMutablePointer<sqlite3_file>?) -> ObservedFile {
    let slot = UnsafeMutableRawPointer(file!).advanced(by: 8).load(as: UnsafeRawPointer.self)
    return Unmanaged<ObservedFile>.fromOpaque(slot).takeUnretainedValue()
}

private func realMethods(_ file: UnsafeMutablePointer<sqlite3_file>?) -> sqlite3_io_methods { real(file).pointee.pMethods.pointee }

private func folder(of path: String) -> String { (path as NSString).deletingLastPathComponent }

private let observedOpen: @convention(c) (
    UnsafeMutablePointer<sqlite3_vfs>?, sqlite3_filename?, UnsafeMutablePointer<sqlite3_file>?, Int32, UnsafeMutablePointer<Int32>?
) -> Int32 = { _, name, file, flags, outFlags in
    let path = name.map { String(cString: $0) }
    let creating = path.map { flags & SQLITE_OPEN_CREATE != 0 && access($0, F_OK) != 0 } ?? false
    if creating, let path { FaultInjection.notifyObservers(.open, path: path) }
    file!.pointee.pMethods = nil
    let base = ObservedSQLite.base!
    let status = base.pointee.xOpen!(base, name, real(file), flags, outFlags)
    guard status == SQLITE_OK, real(file).pointee.pMethods != nil else { return status }
    let facts = Unmanaged.passRetained(ObservedFile(path: path, created: creating)).toOpaque()
    UnsafeMutableRawPointer(file!).advanced(by: 8).storeBytes(of: UnsafeRawPointer(facts), as: UnsafeRawPointer.self)
    file!.pointee.pMethods = UnsafePointer(ObservedSQLite.methods)
    return status
}

private let observedDelete: @convention(c) (UnsafeMutablePointer<sqlite3_vfs>?, UnsafePointer<CChar>?, Int32) -> Int32 = { _, name, syncFolder in
    let path = name.map { String(cString: $0) }
    if let path { FaultInjection.notifyObservers(.unlink, path: path) }
    let base = ObservedSQLite.base!
    let status = base.pointee.xDelete!(base, name, syncFolder)
    if syncFolder != 0, let path { FaultInjection.notifyObservers(.syncFolder, path: folder(of: path)) }
    return status
}

private func forwardingMethods() -> sqlite3_io_methods {
    var methods = sqlite3_io_methods()
    methods.iVersion = 3
    methods.xClose = { file in
        let status = realMethods(file).xClose!(real(file))
        let slot = UnsafeMutableRawPointer(file!).advanced(by: 8).load(as: UnsafeRawPointer.self)
        Unmanaged<ObservedFile>.fromOpaque(slot).release()
        return status
    }
    methods.xRead = { file, buffer, count, offset in realMethods(file).xRead!(real(file), buffer, count, offset) }
    methods.xWrite = { file, buffer, count, offset in
        if let path = facts(file).path { FaultInjection.notifyObservers(.pwrite, path: path) }
        return realMethods(file).xWrite!(real(file), buffer, count, offset)
    }
    methods.xTruncate = { file, size in
        if let path = facts(file).path { FaultInjection.notifyObservers(.truncate, path: path) }
        return realMethods(file).xTruncate!(real(file), size)
    }
    methods.xSync = { file, flags in
        let observed = facts(file)
        if let path = observed.path { FaultInjection.notifyObservers(.fsync, path: path) }
        let status = realMethods(file).xSync!(real(file), flags)
        if observed.created, status == SQLITE_OK, let path = observed.path {
            FaultInjection.notifyObservers(.syncFolder, path: folder(of: path))
            observed.created = false
        }
        return status
    }
    methods.xFileSize = { file, size in realMethods(file).xFileSize!(real(file), size) }
    methods.xLock = { file, level in realMethods(file).xLock!(real(file), level) }
    methods.xUnlock = { file, level in realMethods(file).xUnlock!(real(file), level) }
    methods.xCheckReservedLock = { file, out in realMethods(file).xCheckReservedLock!(real(file), out) }
    methods.xFileControl = { file, op, argument in realMethods(file).xFileControl!(real(file), op, argument) }
    methods.xSectorSize = { file in realMethods(file).xSectorSize!(real(file)) }
    methods.xDeviceCharacteristics = { file in realMethods(file).xDeviceCharacteristics!(real(file)) }
    methods.xShmMap = { file, page, size, extend, address in realMethods(file).xShmMap!(real(file), page, size, extend, address) }
    methods.xShmLock = { file, offset, count, flags in realMethods(file).xShmLock!(real(file), offset, count, flags) }
    methods.xShmBarrier = { file in realMethods(file).xShmBarrier!(real(file)) }
    methods.xShmUnmap = { file, delete in realMethods(file).xShmUnmap!(real(file), delete) }
    methods.xFetch = { file, offset, count, pointer in realMethods(file).xFetch!(real(file), offset, count, pointer) }
    methods.xUnfetch = { file, offset, pointer in realMethods(file).xUnfetch!(real(file), offset, pointer) }
    return methods
}
