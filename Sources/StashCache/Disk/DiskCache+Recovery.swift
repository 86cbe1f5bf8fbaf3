import Foundation
import GRDB
import StashCore
import Logging

extension DiskCache {
    /// What opening a cache repaired: after a crash, a power cut or a hand-edited folder, the
    /// manifest and the files are made to agree before the first read.
    ///
    /// ```swift
    /// let cache = try DiskCache(directory: folder)
    /// if cache.recovery.rebuiltManifest { print("the cache was corrupt and starts empty") }
    /// ```
    public struct Recovery: Sendable, Hashable {
        /// The manifest was unreadable (corrupt, not a database, an unknown version) and was
        /// replaced by an empty one; every file was deleted with it.
        public var rebuiltManifest = false
        /// Entries removed because their file was missing.
        public var removedEntries = 0
        /// Files deleted because no entry named them (a write cut short, a removal whose
        /// file deletion never ran) or because they were temporary files.
        public var removedFiles = 0
        /// Entries whose recorded size was corrected from their file.
        public var resizedEntries = 0
        /// Entries saved under a key not in NFC (by a version before keys were normalized)
        /// and moved to that form; of several forms of one key, the newest value is kept
        /// and the others are counted in ``removedEntries``.
        public var normalizedKeys = 0

        /// Whether nothing needed repair.
        public var isClean: Bool { self == Recovery() }
    }
}

/// What opening the manifest gave: the manifest, its counters (after the repairs), and the
/// repairs.
struct OpenedManifest {
    var manifest: Manifest
    var counters = ManifestCounters()
    var recovery: DiskCache.Recovery
    /// The committed end of each value log segment (a writer's).
    var segments: [Int: Int] = [:]
}

extension DiskCache {
    /// Opens the manifest for writing, rebuilding it when it is unreadable, and reconciles it
    /// with the files.
    static func openWriter(manifestURL: URL, filesDirectory: URL, logger: Logger) throws -> OpenedManifest {
        var opened: OpenedManifest
        do {
            // Local until reconciled: a manifest found unusable is closed (released) before
            // its files are deleted below.
            let manifest = try Manifest(url: manifestURL, readOnly: false)
            var recovery = Recovery()
            try normalizeKeys(of: manifest, filesDirectory: filesDirectory, recovery: &recovery)
            var reconciled = OpenedManifest(manifest: manifest, recovery: recovery)
            try reconcile(&reconciled, filesDirectory: filesDirectory)
            reconciled.segments = try manifest.segments()
            opened = reconciled
        } catch let error as StashError where error.code == .corruptFile || error.code == .unsupportedVersion {
            logger.warning("the manifest \(manifestURL.path) is unusable (\(error)); a cache is disposable, so it starts again empty")
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try FileStore.delete(URL(fileURLWithPath: manifestURL.path + suffix))
            }
            try FileStore.delete(filesDirectory)
            try FileStore.createFolder(filesDirectory)
            let directory = manifestURL.deletingLastPathComponent()
            try FileStore.delete(directory.appendingPathComponent(DiskCache.valuesFolder, isDirectory: true))
            try FileStore.delete(directory.appendingPathComponent(DiskCache.locationsFile))
            let manifest = try Manifest(url: manifestURL, readOnly: false)
            opened = OpenedManifest(manifest: manifest, recovery: Recovery())
            opened.recovery.rebuiltManifest = true
        }
        opened.counters = try opened.manifest.counters()
        if !opened.recovery.isClean, !opened.recovery.rebuiltManifest {
            let recovery = opened.recovery
            logger.warning("reconciled \(manifestURL.deletingLastPathComponent().path): removed \(recovery.removedEntries) entries, \(recovery.removedFiles) orphan files, corrected \(recovery.resizedEntries) sizes, normalized \(recovery.normalizedKeys) keys")
        }
        return opened
    }

    /// Makes the manifest and `files/` agree: rows whose file is missing are deleted, files
    /// no row names are deleted, and sizes are taken from the files. A file is expected under
    /// the name its row records, so the file of a live entry is never taken for an orphan.
    /// Only the file-backed rows are read (through `entry_file`), not the inline ones.
    private static func reconcile(_ opened: inout OpenedManifest, filesDirectory: URL) throws {
        var expected: [String: (key: String, size: Int)] = [:]
        try opened.manifest.rows("SELECT file, key, size FROM entry WHERE file IS NOT NULL") { row in
            expected[try row.decode(atIndex: 0)] = (try row.decode(atIndex: 1), try row.decode(atIndex: 2))
            return true
        }
        var present: Set<String> = []
        for name in try FileStore.list(filesDirectory) {
            if expected[name] != nil {
                present.insert(name)
            } else {
                unlink(filesDirectory.appendingPathComponent(name).path)
                opened.recovery.removedFiles += 1
            }
        }
        var missing: [String] = []
        var resized: [String: Int] = [:]
        for (name, row) in expected {
            guard present.contains(name) else {
                missing.append(row.key)
                continue
            }
            let size = (try? FileStore.size(of: filesDirectory.appendingPathComponent(name))).map(Int.init)
            if let size, size != row.size { resized[row.key] = size }
        }
        try opened.manifest.repair(removing: missing, resizing: resized)
        opened.recovery.removedEntries += missing.count
        opened.recovery.resizedEntries = resized.count
    }
}
