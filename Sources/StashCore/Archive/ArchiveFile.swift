public import Foundation

/// A `Codable` value kept in one file: the role `NSKeyedArchiver` plays in the iOS playbook.
///
/// ```swift
/// struct Draft: Codable, Sendable { var title: String; var body: String }
///
/// let drafts = ArchiveFile<[Draft]>(url: documents.appendingPathComponent("drafts.plist"))
/// try drafts.save([Draft(title: "Hello", body: "…")])
/// let loaded = try drafts.load()
/// ```
///
/// The file is a small envelope, `{"version": 2, "checksum": "sha256:…", "value": …}`, in
/// binary plist (the default), XML plist or JSON, readable by any plist or JSON tool. The
/// version lets a newer build read an older file: register a ``migration(from:_:)`` for each
/// step and a load upgrades the tree before decoding it. The checksum covers every byte of
/// the file: a load of a file changed by anything but a save (a flipped bit, an edit by
/// hand, a torn copy) throws ``StashError/Code/corruptFile`` instead of returning wrong
/// values. Files written before checksums existed still load.
///
/// **Durability.** ``save(_:)`` is an atomic write (temporary file, fsync, rename, fsync of
/// the folder): after a crash or a power cut the file holds the previous value or the new
/// one, never a mix. A load never writes: a corrupt, truncated or too-new file is reported
/// with a typed error naming it and left exactly as it was.
///
/// **Thread safety.** An `ArchiveFile` may be shared between threads and tasks. Concurrent saves
/// from threads or processes never interleave: the last rename wins and the file is always
/// one whole archive. Migrations run without any lock held.
public final class ArchiveFile<Value: Codable>: Sendable {
    /// A step that upgrades the untyped tree of a value from one version to the next.
    public typealias Migration = @Sendable (inout PropertyList) throws -> Void

    /// The file.
    public let url: URL
    /// The encoding of saved files. Loads accept any of the three formats.
    public let format: PropertyListFormat
    /// The version saves write, and loads upgrade to.
    public let version: Int
    /// What a save must survive before returning.
    public let durability: FileStore.Durability
    private let migrations = LockedValue<[Int: Migration]>([:])

    /// An archive at `url`. Nothing is read or written until ``load()`` or ``save(_:)``.
    ///
    /// - parameters:
    ///   - url: The file; its folder must exist when saving.
    ///   - format: How saves encode the file: `.binary` (compact, the default), `.xml` or
    ///     `.json` (both readable by people and other tools).
    ///   - version: The version of `Value`'s shape that this build writes. Start at 1 and
    ///     increase it, with a migration, whenever a change needs one.
    ///   - durability: `.powerSafe` (the default) or `.processSafe` (no fsync).
    public init(url: URL, format: PropertyListFormat = .binary, version: Int = 1, durability: FileStore.Durability = .powerSafe) {
        self.url = url
        self.format = format
        self.version = version
        self.durability = durability
    }

    /// Registers the step that upgrades a file of version `version` to `version + 1`.
    ///
    /// The step edits the untyped tree of the value, so it can add, rename and remove fields
    /// that the current `Value` no longer declares:
    ///
    /// ```swift
    /// let archive = ArchiveFile<Profile>(url: url, version: 2)
    /// archive.migration(from: 1) { profile in
    ///     profile["nickname"] = nil                        // removed in version 2
    ///     profile["theme"] = "system"                      // added in version 2
    /// }
    /// ```
    ///
    /// A load applies every step from the file's version up to ``version``, in order.
    /// Registering a step twice replaces the first. Thread-safe.
    public func migration(from version: Int, _ migrate: @escaping Migration) {
        migrations.withLock { $0[version] = migrate }
    }

    /// Encodes `value` and replaces the file atomically.
    ///
    /// - throws: ``StashError/Code/unsupportedValue`` when the value cannot be encoded
    ///   (nothing is written then), or the file-system errors of ``FileStore``, such as
    ///   ``StashError/Code/diskFull``; the previous file is intact after any error.
    public func save(_ value: Value) throws {
        let data: Data
        do {
            data = try ArchiveEnvelope.encode(value, version: version, format: format)
        } catch var error as StashError {
            error.path = url.path
            throw error
        }
        try FileStore.write(data, to: url, durability: durability)
    }

    /// Reads, upgrades and decodes the file.
    ///
    /// - throws: ``StashError/Code/notFound`` when there is no file;
    ///   ``StashError/Code/corruptFile`` or ``StashError/Code/truncatedFile`` when it is not a
    ///   whole archive; ``StashError/Code/unsupportedVersion`` when it is newer than
    ///   ``version`` or a migration step is missing; ``StashError/Code/typeMismatch`` when the
    ///   upgraded tree does not decode as `Value`. Every error names the file, which is left
    ///   untouched. A file whose checksum does not match its bytes is `corruptFile`, never
    ///   a wrong value.
    public func load() throws -> Value {
        let data = try FileStore.read(url)
        do {
            return try ArchiveEnvelope.decode(Value.self, from: data, version: version, migrations: migrations.withLock { $0 })
        } catch var error as StashError {
            error.path = url.path
            throw error
        }
    }

    /// Like ``load()``, but `nil` when the file does not exist yet.
    ///
    /// ```swift
    /// let drafts = try archive.loadIfPresent() ?? []
    /// ```
    public func loadIfPresent() throws -> Value? {
        do {
            return try load()
        } catch let error as StashError where error.code == .notFound && !FileStore.exists(url) {
            return nil
        }
    }

    /// Deletes the file. Deleting a missing file is not an error.
    public func delete() throws {
        try FileStore.delete(url)
    }
}
