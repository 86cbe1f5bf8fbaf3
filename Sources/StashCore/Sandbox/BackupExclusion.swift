public import Foundation

/// Marks folders that backups should skip.
///
/// On Apple platforms this sets `isExcludedFromBackup`. On Linux it writes a `CACHEDIR.TAG`
/// file as the Cache Directory Tagging Specification describes; tar
/// (`--exclude-caches`), borg and restic (`--exclude-caches`) skip such folders.
public enum BackupExclusion {
    /// The first line a `CACHEDIR.TAG` must start with.
    public static let cacheDirectoryTagSignature = "Signature: 8a477f597d28d172789f06886806bc55"

    /// Whether this platform marks folders with the `isExcludedFromBackup` resource value
    /// (Apple platforms) rather than a `CACHEDIR.TAG` file.
    static var usesResourceValue: Bool {
        #if canImport(Darwin)
        return true
        #else
        return false
        #endif
    }

    /// Marks `folder` as excluded from backup. Idempotent.
    public static func mark(_ folder: URL) throws {
        if usesResourceValue {
            try setExcludedResourceValue(folder)
        } else {
            try writeCacheDirectoryTag(in: folder)
        }
    }

    /// Whether `folder` is marked as excluded from backup.
    public static func isMarked(_ folder: URL) -> Bool {
        usesResourceValue ? hasExcludedResourceValue(folder) : hasCacheDirectoryTag(folder)
    }

    // MARK: The two marks (each compiled everywhere)

    static func setExcludedResourceValue(_ folder: URL) throws {
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = folder
        do { try url.setResourceValues(values) } catch {
            throw StashError(.io, "cannot exclude from backup: \(error.localizedDescription)", path: folder.path)
        }
    }

    static func hasExcludedResourceValue(_ folder: URL) -> Bool {
        (try? folder.resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup) == true
    }

    static func writeCacheDirectoryTag(in folder: URL) throws {
        let tag = folder.appendingPathComponent("CACHEDIR.TAG")
        if hasCacheDirectoryTag(folder) { return }
        let content = cacheDirectoryTagSignature + "\n"
            + "# This file is a cache directory tag created by Stash.\n"
            + "# For information about cache directory tags, see https://bford.info/cachedir/\n"
        try FileStore.write(Data(content.utf8), to: tag, permissions: 0o600, durability: .processSafe)
    }

    static func hasCacheDirectoryTag(_ folder: URL) -> Bool {
        guard let data = try? FileStore.read(folder.appendingPathComponent("CACHEDIR.TAG")) else { return false }
        return data.starts(with: Data(cacheDirectoryTagSignature.utf8))
    }
}
