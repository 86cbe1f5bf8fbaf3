/// What a power cut may leave of the writes that were not synced: the rules the
/// ``CrashExplorer`` builds its crash states by.
///
/// In both models, what was synced survives: a file's bytes after `fsync` (or, for a mapped
/// file, the range an `msync(MS_SYNC)` covered), a folder's entries after the folder's own
/// `fsync`. What was not synced may reach the device in part: each unsynced 512-byte sector
/// of a file is kept or dropped on its own (a write torn at sector size), and a file's size is
/// the synced one or the latest one.
///
/// The two models differ in the order of what was not synced:
public enum PersistenceModel: String, Sendable, CaseIterable {
    /// ext4 with `data=ordered` (Linux's default), the baseline. Changes to names (create,
    /// rename, unlink, link, mkdir) are journaled in the order they were made, and any
    /// `fsync` commits the journal: after a power cut the names show a prefix of the changes
    /// made since the last commit. Bytes appended past a file's synced size reach the disk
    /// before the size that covers them (never zeros in their place).
    case ext4Ordered = "ext4 data=ordered"

    /// Anything not synced may be lost or reordered (POSIX's letter, and what some flash
    /// file systems do): a change to a folder's names is kept only when that folder was
    /// synced after it, otherwise any subset of those changes survives, each whole (a rename
    /// is never half done); bytes past a file's synced size may read as zeros.
    case anythingUnsynced = "anything unsynced may be lost or reordered"
}
