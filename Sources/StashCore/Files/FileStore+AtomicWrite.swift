public import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FileStore {
    /// How far a write must reach before it returns.
    public enum Durability: Sendable {
        /// The data and the rename are flushed to the device (fsync of the file and of its
        /// folder): the write survives a power cut. The default.
        case powerSafe
        /// No fsync: the write survives a crash of the process (the kernel has it) but may be
        /// lost, as a whole, in a power cut. The old content or the new, never a mix.
        case processSafe
    }

    /// Writes `data` to `url` atomically: into a temporary file in the same folder, fsync,
    /// rename over the destination, fsync of the folder.
    ///
    /// Readers and a crash at any moment see either the previous content or the new one,
    /// never a mix. A failed write (a full disk, say) removes its temporary file and leaves
    /// the previous content in place.
    ///
    /// ```swift
    /// try FileStore.write(json, to: url)                              // power-safe
    /// try FileStore.write(json, to: url, durability: .processSafe)    // faster
    /// ```
    ///
    /// - parameters:
    ///   - data: The new content.
    ///   - url: The destination; its folder must exist.
    ///   - permissions: The mode of a new file (owner-only by default).
    ///   - durability: What the write must survive before returning.
    /// - throws: ``StashError`` with ``StashError/Code/diskFull`` when the disk is full,
    ///   ``StashError/Code/permissionDenied`` or ``StashError/Code/io``.
    public static func write(
        _ data: Data,
        to url: URL,
        permissions: mode_t = 0o600,
        durability: Durability = .powerSafe
    ) throws {
        let file = try StagedFile(data, for: url, permissions: permissions, durability: durability)
        do {
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    /// The first half of an atomic write: the new content, complete in a hidden temporary
    /// file beside its destination, waiting to be renamed over it by ``commit()``. For stores
    /// that must take a lock or record something at the moment the file takes its name.
    ///
    /// ```swift
    /// let file = try FileStore.StagedFile(data, for: url, durability: .processSafe)
    /// do { try lock.withLock { try file.commit(); record(url) } } catch { file.discard(); throw error }
    /// ```
    ///
    /// Errors name the destination, never the temporary file.
    package struct StagedFile: Sendable {
        /// Where ``commit()`` puts the content.
        package let destination: URL
        /// The hidden temporary file (`.NAME.RANDOM.tmp` in the same folder).
        package let temporaryPath: String
        let durability: Durability
        /// Whether the content is on the device already (fsynced by ``init(_:for:permissions:durability:)``);
        /// otherwise a power-safe ``commit()`` fsyncs it first.
        let isContentSynced: Bool

        /// Writes `data` into a new temporary file beside `url` (fsynced when `durability`
        /// is ``Durability/powerSafe``). On error nothing is left behind.
        ///
        /// - throws: ``StashError/Code/diskFull``, ``StashError/Code/notFound`` when the
        ///   folder is missing, ``StashError/Code/permissionDenied``, ``StashError/Code/io``,
        ///   each naming `url`.
        package init(_ data: Data, for url: URL, permissions: mode_t = 0o600, durability: Durability) throws {
            let (file, fd) = try Self.create(for: url, permissions: permissions, durability: durability)
            var closed = false
            do {
                defer { if !closed { close(fd) } }
                try FileStore.writeAll(fd, data, path: url.path)
                if durability == .powerSafe, fsync(fd) != 0 {
                    throw StashError.posix("fsync", path: url.path)
                }
                closed = true
                if close(fd) != 0 { throw StashError.posix("close", path: url.path) }
            } catch {
                file.discard()
                throw error
            }
            self = StagedFile(temporaryPath: file.temporaryPath, for: url, durability: durability, isContentSynced: durability == .powerSafe)
        }

        /// Creates an empty temporary file for `url` and returns it open for writing, for
        /// content written part by part (`FileStore.writeAll`). The caller closes the
        /// descriptor before ``commit()``, and calls ``discard()`` when it gives up. With
        /// ``Durability/powerSafe``, ``commit()`` fsyncs the content before the rename.
        ///
        /// ```swift
        /// let (file, fd) = try FileStore.StagedFile.create(for: url, durability: .processSafe)
        /// for part in parts { try FileStore.writeAll(fd, part, path: url.path) }
        /// SystemCalls.close(fd)
        /// try file.commit()
        /// ```
        ///
        /// - throws: As ``init(_:for:permissions:durability:)``.
        package static func create(
            for url: URL, permissions: mode_t = 0o600, durability: Durability
        ) throws -> (file: StagedFile, descriptor: Int32) {
            let temporary = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + "." + FileStore.randomSuffix() + ".tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
            guard fd >= 0 else { throw StashError.posix("create temporary file", path: url.path) }
            return (StagedFile(temporaryPath: temporary, for: url, durability: durability, isContentSynced: false), fd)
        }

        /// The temporary file already written at `temporaryPath`, to be committed to `url`:
        /// for content staged before its final name was known.
        ///
        /// ```swift
        /// let file = FileStore.StagedFile(temporaryPath: incoming.path, for: destination, durability: .processSafe)
        /// ```
        ///
        /// With ``Durability/powerSafe``, ``commit()`` fsyncs the content before the rename
        /// (the caller need not have).
        package init(temporaryPath: String, for url: URL, durability: Durability) {
            self.init(temporaryPath: temporaryPath, for: url, durability: durability, isContentSynced: false)
        }

        private init(temporaryPath: String, for url: URL, durability: Durability, isContentSynced: Bool) {
            self.destination = url
            self.temporaryPath = temporaryPath
            self.durability = durability
            self.isContentSynced = isContentSynced
        }

        /// Renames the temporary file over the destination; when power-safe, fsyncs the
        /// content first (unless it was written and fsynced by
        /// ``init(_:for:permissions:durability:)``) and the folder after, so that a power cut
        /// never leaves the destination's name on a torn file. Readers see the previous
        /// content or the new one, never a mix.
        package func commit() throws {
            if durability == .powerSafe, !isContentSynced { try FileStore.syncFile(temporaryPath, naming: destination.path) }
            guard rename(temporaryPath, destination.path) == 0 else {
                throw StashError.posix("rename", path: destination.path)
            }
            if durability == .powerSafe { FileStore.syncFolder(destination.deletingLastPathComponent().path) }
        }

        /// Deletes the temporary file of a write that will not be committed.
        package func discard() {
            unlink(temporaryPath)
        }
    }

    /// Writes every byte of `data` to `fd`, retrying short writes and EINTR.
    package static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = SystemCalls.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StashError.posix("write", path: path)
                }
                offset += n
            }
        }
    }

    /// fsyncs the file at `path` (the content written through another descriptor, now
    /// closed), naming `destination` in errors.
    static func syncFile(_ path: String, naming destination: String) throws {
        let fd = SystemCalls.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StashError.posix("open for fsync", path: destination) }
        defer { SystemCalls.close(fd) }
        guard fsync(fd) == 0 else { throw StashError.posix("fsync", path: destination) }
    }

    /// fsyncs a folder so that a rename or a new entry in it survives a power cut.
    package static func syncFolder(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    fileprivate static func randomSuffix() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
