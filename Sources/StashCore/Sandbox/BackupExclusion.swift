public import Foundation

/// Marks folders that backups should skip.
///
/// On Apple platforms this sets `isExcludedFromBackup`. On Linux it writes a `CACHEDIR.TAG`
/// file as the Cache Directory Tagging Specification describes; tar
/// (`--exclude-caches`), borg and restic (`--exclude-caches`) skip such folders.
public enum BackupExclusion {
    /// The first line a `CACHEDIR.TAG` must start with.
    public static let cacheDirectoryTagSignature = "Signature: 8a477f597d28d172789f06886806bc55"

    /// Marks `folder` as excluded from backup. Idempotent.
    public static func mark(_ folder: URL) throws {
        #if canImport(Darwin)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = folder
        do { try url.setResourceValues(values) } catch {
            throw StashError(.io, "cannot exclude from backup: \(error.localizedDescription)", path: folder.path)
        }
        #else
        let tag = folder.appendingPathComponent("CACHEDIR.TAG")
        if FileStore.exists(tag) { return }
        let content = cacheDirectoryTagSignature + "\n"
            + "# This file is a cache directory tag created by Stash.\n"
            + "# For information about cache directory tags, see https://bford.info/cachedir/\n"
        try FileStore.write(Data(content.utf8), to: tag, permissions: 0o600, durability: .processSafe)
        #endif
    }

    /// Whether `folder` is marked as excluded from backup.
    public static func isMarked(_ folder: URL) -> Bool {
        #if canImport(Darwin)
        return (try? folder.resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup) == true
        #else
        guard let data = try? FileStore.read(folder.appendingPathComponent("CACHEDIR.TAG")) else { return false }
        return data.starts(with: Data(cacheDirectoryTagSignature.utf8))
        #endif
    }
}
