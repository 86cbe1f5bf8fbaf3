import Foundation
import GRDB
import GRDBSQLite
import StashCore

/// When the manifest's WAL is copied back into the database file.
///
/// SQLite's automatic checkpoint runs inside a commit once the WAL holds 1,000 frames, but a
/// writer's reader is then still on the commit before (``ManifestReader``), so it could not
/// copy the new frames, and the WAL would never start over. The write connection's WAL hook
/// counts the frames instead (which turns the automatic checkpoint off), and the flush
/// checkpoints itself once ``checkpointFrames`` are reached, after it has moved the reader
/// to its commit. A checkpoint syncs the WAL and the database file (`synchronous = NORMAL`),
/// so it is not run after every flush: two syncs per 1,000 frames, as SQLite's default.
extension Manifest {
    /// The frames in the WAL past which a flush checkpoints: SQLite's default, about 4 MB.
    static let checkpointFrames = 1_000

    /// Whether the WAL holds enough frames for a flush to checkpoint.
    var needsCheckpoint: Bool { walFrames.value >= Manifest.checkpointFrames }

    /// Copies the WAL's commits back into the database file (a passive checkpoint: it waits
    /// for no reader, and copies what no reader on an older commit still needs).
    func checkpoint() throws {
        do {
            _ = try database.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        } catch {
            throw Manifest.stashError(error, path: url.path)
        }
    }
}

/// The frames in a connection's WAL after its last commit, as SQLite's WAL hook reports them.
/// The hook runs on the connection's queue after each commit; reads come from the flush.
final class WALFrameCount: Sendable {
    private let frames = LockedValue(0)

    var value: Int { frames.withLock { $0 } }

    /// Makes `connection` report its WAL's frames here after each commit. The connection's
    /// configuration keeps this object alive as long as the connection (it is captured by
    /// `prepareDatabase`).
    func install(on connection: OpaquePointer?) {
        sqlite3_wal_hook(connection, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALFrameCount>.fromOpaque(context).takeUnretainedValue().frames.withLock { $0 = Int(frames) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }
}
