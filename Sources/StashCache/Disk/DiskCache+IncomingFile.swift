public import Foundation
public import StashCore

/// Values too large to hold in memory: written part by part into a file in the cache's own
/// folder, then made a value with one rename.
extension DiskCache {
    /// Creates an empty file in the cache's own folder for a value written part by part,
    /// which ``adoptFile(at:forKey:expiry:metadata:)`` then makes the value of a key.
    ///
    /// ```swift
    /// let incoming = try cache.makeIncomingFile()
    /// let handle = try FileHandle(forWritingTo: incoming)
    /// for try await part in download { try handle.write(contentsOf: part) }
    /// try handle.close()
    /// try cache.adoptFile(at: incoming, forKey: "movie.mp4")
    /// ```
    ///
    /// A file that is never adopted should be deleted by its writer; one left behind (the
    /// process was killed while writing it) is deleted when the cache is next opened, so
    /// no entry ever points at a half-written file. Thread-safe; each file has one writer.
    ///
    /// - throws: ``/StashCore/StashError/Code/readOnly``, ``/StashCore/StashError/Code/closed``,
    ///   ``/StashCore/StashError/Code/diskFull``, or the error creating the file.
    public func makeIncomingFile() throws -> URL {
        let (file, fd) = try openIncomingFile()
        SystemCalls.close(fd)
        return URL(fileURLWithPath: file.temporaryPath, isDirectory: false)
    }

    /// A new incoming file (as ``makeIncomingFile()``), open for writing: the caller writes
    /// it, closes the descriptor, then adopts the file's `temporaryPath` or discards it.
    package func openIncomingFile() throws -> (file: FileStore.StagedFile, descriptor: Int32) {
        // Its temporary name, `.incoming.RANDOM.tmp`, is what `adoptFile` and `reconcile` know.
        // The destination is a placeholder (the file's final name comes with its key), so
        // errors name the files folder, and no key.
        let placeholder = filesDirectory.appendingPathComponent("incoming", isDirectory: false)
        return try inFilesFolder(key: nil) {
            try FileStore.StagedFile.create(for: placeholder, naming: filesDirectory.path, durability: .processSafe)
        }
    }

    /// Makes the finished file at `url`, made by ``makeIncomingFile()``, the value of `key`
    /// (replacing any previous value) with one rename: readers see the old value or the
    /// whole new one, never part of it.
    ///
    /// ```swift
    /// try cache.adoptFile(at: incoming, forKey: "movie.mp4", expiry: .sliding(86_400))
    /// let url = cache.fileURL(for: "movie.mp4")
    /// ```
    ///
    /// The value is file-backed whatever its size (``fileURL(for:)`` finds it). Like a
    /// file-backed ``set(_:forKey:expiry:metadata:)``, its row is committed by the next
    /// flush; a crash before that deletes the file at the next open. The file is not
    /// fsynced (as a file-backed `set` under the cache's default durability), so a power
    /// cut may lose it. Thread-safe.
    ///
    /// - throws: ``/StashCore/StashError/Code/unsupportedValue`` when `url` is not a file made
    ///   by ``makeIncomingFile()`` of this cache (the file is left alone), and what `set`
    ///   throws (the incoming file is then deleted and the previous value kept).
    public func adoptFile(at url: URL, forKey key: String, expiry: ExpiryPolicy? = nil, metadata: Data? = nil) throws {
        // Checked before anything else: a file that is not this cache's own is never deleted.
        guard url.deletingLastPathComponent().standardizedFileURL.path == filesDirectory.standardizedFileURL.path,
              url.lastPathComponent.hasPrefix(".incoming.") else {
            throw StashError(.unsupportedValue, "adoptFile takes a file made by makeIncomingFile() of this cache", path: url.path)
        }
        let file = FileStore.StagedFile(temporaryPath: url.path, for: url, durability: .processSafe)
        let size: Int
        do {
            size = Int(try FileStore.size(of: url))
        } catch {
            file.discard()
            throw error
        }
        try adopt(file, size: size, forKey: key, expiry: expiry, metadata: metadata)
    }

    /// Makes `file`, an incoming file of this cache (``openIncomingFile()``) closed and
    /// `size` bytes long, the value of `key`, as ``adoptFile(at:forKey:expiry:metadata:)``
    /// does, for a caller that made the file itself and knows its length.
    ///
    /// - throws: What `set` throws; the file is then deleted and the previous value kept.
    package func adopt(_ file: FileStore.StagedFile, size: Int, forKey key: String, expiry: ExpiryPolicy? = nil, metadata: Data? = nil) throws {
        let storedKey: String
        let record: DiskRecord?
        do {
            storedKey = try DiskCache.storedKey(key)
            record = try newRecord(size: size, key: storedKey, inFile: true, expiry: expiry, metadata: metadata)
        } catch {
            file.discard()
            throw error
        }
        guard let record, let name = record.file else {
            file.discard()
            removeValue(forKey: storedKey)
            return
        }
        let key = storedKey
        // Renamed to the name of its row (the commit deletes it on error).
        let named = FileStore.StagedFile(temporaryPath: file.temporaryPath, for: URL(fileURLWithPath: filePath(named: name)), durability: .processSafe)
        try commitStaged(named, key: key) { try stage(key, isWrite: true) { $0.stageWrite(key, record, inlineValue: nil) } }
    }
}
