public import Foundation
import GRDB
public import StashCore
import StashSQL

/// An object store: the models of a schema kept in one SQLite database, read concurrently
/// while a write is in progress (a GRDB `DatabasePool` underneath).
///
/// Opening a store creates or migrates its tables (see ``ObjectSchema``). A file that is not
/// SQLite, or that a newer schema version wrote, is refused and left untouched.
///
/// ```swift
/// struct Person: Model { var id: Int64?; var name: String; var age: Int }
///
/// let store = try ObjectStore("people", sandbox: sandbox, schema: ObjectSchema(Person.self))
/// let ada = try store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
/// let adults = try store.fetch(Person.query().filter(\.age >= 18).sorted(\.name))
/// ```
///
/// **Thread safety.** Share one store between threads and tasks; every call is safe.
/// **Durability.** A `write` that returned is committed (WAL, `synchronous=FULL`) and
/// survives a crash; one that threw wrote nothing.
public final class ObjectStore: Sendable {
    /// The database file.
    public let url: URL
    /// The schema the store was opened with.
    public let schema: ObjectSchema
    let pool: DatabasePool
    /// Wakes observations for other processes' commits while any runs.
    let externalCommits: ExternalCommitWatch
    let models: [ObjectIdentifier: ModelSchema]
    let modelList: [ModelSchema]
    /// Whether ``close()`` ran: every later call throws `closed` (SQLite's own answer on a
    /// closed connection varies from call to call).
    private let closed = LockedValue(false)

    /// Opens (creating it if needed) store `name` in `folder` of `sandbox`: Application
    /// Support by default, where app data that is not a user document belongs.
    ///
    /// ```swift
    /// let store = try ObjectStore("library", sandbox: .main, schema: ObjectSchema(Book.self))
    /// ```
    ///
    /// - throws: ``/StashCore/StashError/Code/invalidName``, ``/StashCore/StashError/Code/corruptFile`` (not a
    ///   SQLite file; left untouched), ``/StashCore/StashError/Code/unsupportedVersion`` (a newer schema
    ///   wrote it; left untouched), ``StashCore/StashError/Code/migrationFailed`` (rolled back),
    ///   ``StashCore/StashError/Code/invalidSchema`` (a declaration that cannot be stored, such as
    ///   `nullify` on a non-optional key; found before the file is opened).
    public convenience init(_ name: String, in folder: Sandbox.Folder = .applicationSupport, sandbox: Sandbox, schema: ObjectSchema) throws {
        try self.init(url: sandbox.databaseURL(name, in: folder), schema: schema)
    }

    /// Opens (creating it if needed) the store in the file at `url`.
    ///
    /// ```swift
    /// let store = try ObjectStore(url: URL(fileURLWithPath: "/srv/app/objects.sqlite"), schema: schema)
    /// ```
    public init(url: URL, schema: ObjectSchema) throws {
        self.url = url
        self.schema = schema
        let resolved = try schema.resolve()
        try NamedRelationships.checkTargets(resolved)
        var models: [ObjectIdentifier: ModelSchema] = [:]
        for model in resolved {
            if models[model.type] != nil { continue }
            models[model.type] = model
        }
        self.models = models
        self.modelList = resolved
        try Self.refuseNonSQLite(url)
        let pool = try StashDatabase.pool(at: url, configuration: TextFolding.configuration())
        self.pool = pool
        externalCommits = ExternalCommitWatch(pool: pool, signal: ChangeSignal(file: url))
        do {
            try SchemaMigrator(schema: schema, models: resolved).migrate(pool, path: url.path)
        } catch {
            try? pool.close()
            throw error
        }
    }

    /// A file that exists and is not empty must start with SQLite's header: anything else is
    /// someone's data, never to be overwritten.
    private static func refuseNonSQLite(_ url: URL) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { return }
        guard header == Data("SQLite format 3\u{0}".utf8) else {
            throw StashError(.corruptFile, "not a SQLite database; the file was left untouched", path: url.path)
        }
    }

    func schema<M: Model>(for type: M.Type) throws -> ModelSchema {
        guard let schema = models[ObjectIdentifier(type)] else {
            throw StashError(.unknownModel, "\(M.self) is not in the store's schema", key: "\(M.self)")
        }
        return schema
    }

    /// Closes the database; later reads and writes throw ``/StashCore/StashError/Code/closed``.
    ///
    /// ```swift
    /// try store.close()
    /// ```
    public func close() throws {
        closed.withLock { $0 = true }
        try pool.close()
    }

    /// Throws `closed` once ``close()`` ran.
    func checkOpen() throws {
        if closed.withLock({ $0 }) { throw StashError(.closed, "the object store was closed", path: url.path) }
    }

    // MARK: Reads and writes

    /// Runs `body` with a consistent snapshot of the store, concurrently with other reads
    /// and with a write in progress.
    ///
    /// ```swift
    /// let (count, oldest) = try store.read { reader in
    ///     (try reader.count(Person.query()), try reader.fetchOne(Person.query().sorted(\.age, .descending)))
    /// }
    /// ```
    public func read<T>(_ body: (ObjectReader) throws -> T) throws -> T {
        try checkOpen()
        return try ObjectErrors.mapping(path: url.path) {
            try pool.read { db in try body(ObjectReader(db: db, store: self)) }
        }
    }

    /// Runs `body` in one write transaction: all of it is committed when it returns, nothing
    /// when it throws.
    ///
    /// ```swift
    /// try store.write { tx in
    ///     let ada = try tx.insert(Person(id: nil, name: "Ada", age: 36))
    ///     try tx.insert(Card(id: nil, number: "4400", ownerID: ada.id!))
    /// }
    /// ```
    @discardableResult
    public func write<T>(_ body: (ObjectTransaction) throws -> T) throws -> T {
        try checkOpen()
        return try ObjectErrors.mapping(path: url.path) {
            let result = try pool.write { db in try body(ObjectTransaction(db: db, store: self)) }
            externalCommits.signal.post()  // committed: other processes' observers look at once
            return result
        }
    }

    /// ``read(_:)`` from a task, off the caller's thread.
    ///
    /// ```swift
    /// let people = try await store.read { try $0.fetch(Person.query()) }
    /// ```
    public func read<T: Sendable>(_ body: @escaping @Sendable (ObjectReader) throws -> T) async throws -> T {
        try checkOpen()
        return try await ObjectErrors.mapping(path: url.path) {
            try await pool.read { db in try body(ObjectReader(db: db, store: self)) }
        }
    }

    /// ``write(_:)`` from a task, off the caller's thread.
    ///
    /// ```swift
    /// try await store.write { tx in try tx.insert(Person(id: nil, name: "Ada", age: 36)) }
    /// ```
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (ObjectTransaction) throws -> T) async throws -> T {
        try checkOpen()
        return try await ObjectErrors.mapping(path: url.path) {
            let result = try await pool.write { db in try body(ObjectTransaction(db: db, store: self)) }
            externalCommits.signal.post()  // committed: other processes' observers look at once
            return result
        }
    }

    // MARK: One-call reads

    /// The objects `query` selects, in its order.
    ///
    /// ```swift
    /// let people = try store.fetch(Person.query().sorted(\.age, .descending))
    /// ```
    public func fetch<M: Model>(_ query: ObjectQuery<M>) throws -> [M] {
        try read { try $0.fetch(query) }
    }

    /// The objects `query` selects, from a task.
    public func fetch<M: Model>(_ query: ObjectQuery<M>) async throws -> [M] {
        try await read { try $0.fetch(query) }
    }

    /// The object with this id, or `nil`.
    ///
    /// ```swift
    /// let ada = try store.object(Person.self, id: 1)
    /// ```
    public func object<M: Model>(_ type: M.Type, id: M.ID) throws -> M? {
        try read { try $0.object(type, id: id) }
    }

    /// How many objects `query` selects.
    ///
    /// ```swift
    /// let adults = try store.count(Person.query().filter(\.age >= 18))
    /// ```
    public func count<M: Model>(_ query: ObjectQuery<M>) throws -> Int {
        try read { try $0.count(query) }
    }

    /// The object with this id, or `nil`, from a task.
    ///
    /// ```swift
    /// let ada = try await store.object(Person.self, id: 1)
    /// ```
    public func object<M: Model>(_ type: M.Type, id: M.ID) async throws -> M? {
        try await read { try $0.object(type, id: id) }
    }

    /// How many objects `query` selects, from a task.
    ///
    /// ```swift
    /// let adults = try await store.count(Person.query().filter(\.age >= 18))
    /// ```
    public func count<M: Model>(_ query: ObjectQuery<M>) async throws -> Int {
        try await read { try $0.count(query) }
    }
}
