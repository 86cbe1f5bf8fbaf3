import Foundation
import StashCore

/// A body arriving in parts, written to an incoming file of the disk cache's folder
/// (`DiskCache.openIncomingFile()`) instead of memory. The file is deleted when the spool
/// goes away unfinished (the body failed or was dropped); ``finish()`` hands it over.
/// Written by one task at a time, as every ``HTTPBodyStream`` is read.
final class BodySpool: Sendable {
    private let file: FileStore.StagedFile
    private let descriptor: Int32
    /// Whether the file is still open (not yet finished or given up).
    private let isOpen = LockedValue(true)

    /// Takes over `file`, open for writing as `descriptor`.
    init(_ file: FileStore.StagedFile, descriptor: Int32) {
        self.file = file
        self.descriptor = descriptor
    }

    /// Appends `data`.
    func write(_ data: Data) throws {
        // The lock is not held across the write: the spool has one writer.
        guard isOpen.withLock({ $0 }) else { throw StashError(.closed, "the body spool was finished", path: file.temporaryPath) }
        try FileStore.writeAll(descriptor, data, path: file.temporaryPath)
    }

    /// Closes the file and gives it up to the caller, who adopts
    /// (`DiskCache.adopt(_:size:forKey:expiry:metadata:)`) or discards it.
    func finish() throws -> FileStore.StagedFile {
        guard isOpen.withLock({ isOpen in defer { isOpen = false }; return isOpen }) else {
            throw StashError(.closed, "the body spool was finished", path: file.temporaryPath)
        }
        guard SystemCalls.close(descriptor) == 0 else {
            let error = StashError.posix("close an incoming file", path: file.temporaryPath)
            file.discard()
            throw error
        }
        return file
    }

    deinit {
        if isOpen.withLock({ $0 }) {
            SystemCalls.close(descriptor)
            file.discard()
        }
    }
}
