public import Foundation

extension FileStore {
    /// How far a write must reach before it returns.
    public enum Durability: Sendable {
        /// The data and the rename are flushed to the device (fsync of the file and of its
        /// folder; on Darwin `F_FULLFSYNC`, since `fsync` there stops at the drive's cache):
        /// the write survives a power cut. The default.
        case powerSafe
        /// No fsync: the write survives a crash of the process (the kernel has it), and
        /// readers see the old content or the new, never a mix. A power cut may take it
        /// back, and may leave the file empty or torn: nothing orders its bytes before its
        /// new name (see the Durability article).
        case processSafe
    }

    /// Writes `data` to `url` atomically: into a temporary file in the same folder, fsync,
    /// rename over the destination, fsync of the folder.
    ///
    /// Readers and a crash at any moment see either the previous content or the new one,
    /// never a mix. A failed write (a full disk, say) removes its temporary file and leaves
    /// the previous content in place; only when the last step, the fsync of the folder,
    /// fails is the new content already in place (the error says so): it survives a crash
    /// of the process, perhaps not a power cut.
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
    ///   ``StashError/Code/permissionDenied`` or ``StashError/Code/io`` (for a failed fsync
    ///   too).
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
    /// Errors name the destination, never the temporary file. ``commit()`` does the rename
    /// and, when power-safe, one fsync of the folder: the content is fsynced before (by
    /// ``init(_:for:permissions:durability:)``, or by the caller of ``create(for:naming:permissions:durability:)``),
    /// so a commit under a lock holds it across no write of the content.
    package struct StagedFile: Sendable {
        /// Where ``commit()`` puts the content.
        package let destination: URL
        /// The hidden temporary file (`.NAME.RANDOM.tmp` in the same folder).
        package let temporaryPath: String
        let durability: Durability

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
                if durability == .powerSafe { try FileStore.syncContent(fd, path: url.path) }
                closed = true
                if close(fd) != 0 { throw StashError.posix("close", path: url.path) }
            } catch {
                file.discard()
                throw error
            }
            self = file
        }

        /// Creates an empty temporary file for `url` and returns it open for writing, for
        /// content written part by part (`FileStore.writeAll`). The caller closes the
        /// descriptor before ``commit()``, and calls ``discard()`` when it gives up. With
        /// ``Durability/powerSafe`` the caller also fsyncs the content before it closes the
        /// descriptor (``FileStore/syncContent(_:path:)``), outside any lock it commits under.
        ///
        /// ```swift
        /// let (file, fd) = try FileStore.StagedFile.create(for: url, durability: .powerSafe)
        /// for part in parts { try FileStore.writeAll(fd, part, path: url.path) }
        /// try FileStore.syncContent(fd, path: url.path)
        /// SystemCalls.close(fd)
        /// try lock.withLock { try file.commit() }
        /// ```
        ///
        /// - parameters:
        ///   - naming: The path errors name (`url`'s by default): for a destination that is
        ///     only a placeholder until the content gets its name, the folder, say.
        /// - throws: As ``init(_:for:permissions:durability:)``.
        package static func create(
            for url: URL, naming: String? = nil, permissions: mode_t = 0o600, durability: Durability
        ) throws -> (file: StagedFile, descriptor: Int32) {
            let temporary = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + "." + FileStore.randomSuffix() + ".tmp"
            let fd = SystemCalls.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
            guard fd >= 0 else { throw StashError.posix("create temporary file", path: naming ?? url.path) }
            return (StagedFile(temporaryPath: temporary, for: url, durability: durability), fd)
        }

        /// The temporary file already written at `temporaryPath`, to be committed to `url`:
        /// for content staged before its final name was known.
        ///
        /// ```swift
        /// let file = FileStore.StagedFile(temporaryPath: incoming.path, for: destination, durability: .processSafe)
        /// ```
        ///
        /// With ``Durability/powerSafe``, its content must be fsynced already (as
        /// ``create(for:naming:permissions:durability:)`` says).
        package init(temporaryPath: String, for url: URL, durability: Durability) {
            self.destination = url
            self.temporaryPath = temporaryPath
            self.durability = durability
        }

        /// Renames the temporary file over the destination; when power-safe, fsyncs the
        /// folder after, so that the new name survives a power cut (the content was fsynced
        /// before: a power cut never leaves the destination's name on a torn file). Readers
        /// see the previous content or the new one, never a mix.
        ///
        /// - throws: The rename's error (nothing changed then), or the folder sync's
        ///   (``FileStore/syncFolder(_:)``): the new content is in place then, perhaps not
        ///   on the device.
        package func commit() throws {
            guard SystemCalls.rename(temporaryPath, destination.path) == 0 else {
                throw StashError.posix("rename", path: destination.path)
            }
            if durability == .powerSafe {
                do {
                    try FileStore.syncFolder(destination.deletingLastPathComponent().path)
                } catch var error as StashError {
                    error.reason += "; the new content is in place but may not survive a power cut"
                    error.path = destination.path
                    throw error
                }
            }
        }

        /// Deletes the temporary file of a write that will not be committed (nothing, once
        /// committed). A failure is left to ``FileStore/removeLeftoverTemporaryFiles(in:)``.
        package func discard() {
            SystemCalls.unlink(temporaryPath)
        }
    }

    /// Writes every byte of `data` to `fd`, retrying short writes and EINTR.
    package static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = SystemCalls.write(fd, buffer.baseAddress! + offset, buffer.count - offset, path: path)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StashError.posix("write", path: path)
                }
                offset += n
            }
        }
    }

    /// fsyncs the content written to the open file `fd` (a power-safe ``StagedFile`` made
    /// by ``StagedFile/create(for:naming:permissions:durability:)``, before its descriptor closes),
    /// naming `path` in errors.
    ///
    /// ```swift
    /// try FileStore.syncContent(fd, path: destination.path)
    /// ```
    ///
    /// On Darwin this is `fcntl(F_FULLFSYNC)` (see ``SystemCalls/fsync(_:path:)``).
    ///
    /// - throws: ``StashError`` with the `fsync` failure's code (``StashError/Code/io``,
    ///   ``StashError/Code/diskFull``).
    package static func syncContent(_ fd: Int32, path: String) throws {
        guard SystemCalls.fsync(fd, path: path) == 0 else { throw StashError.posix("fsync", path: path) }
    }

    /// fsyncs a folder (`F_FULLFSYNC` on Darwin) so that a rename or a new entry in it
    /// survives a power cut.
    ///
    /// ```swift
    /// try FileStore.syncFolder(folder.path)
    /// ```
    ///
    /// A file system that cannot fsync a folder says so with `EINVAL` (some FUSE and network
    /// file systems on Linux) or `ENOTSUP` / `EOPNOTSUPP`: that is not an error, since such a
    /// file system offers nothing stronger. Every other failure, of the `open` or of the
    /// `fsync`, is.
    ///
    /// - throws: ``StashError`` naming the folder: ``StashError/Code/notFound``,
    ///   ``StashError/Code/permissionDenied``, ``StashError/Code/io``.
    package static func syncFolder(_ path: String) throws {
        let fd = SystemCalls.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StashError.posix("open the folder to fsync it", path: path) }
        defer { SystemCalls.close(fd) }
        guard SystemCalls.syncFolder(fd, path: path) != 0 else { return }
        let code = errno
        if code == EINVAL || code == ENOTSUP || code == EOPNOTSUPP { return }
        throw StashError.posix(code, "fsync of the folder", path: path)
    }

    fileprivate static func randomSuffix() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
