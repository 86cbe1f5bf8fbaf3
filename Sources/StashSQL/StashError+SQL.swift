public import StashCore

extension StashError.Code {
    /// SQLite could not open a database file (not a database, permissions, missing folder).
    /// Errors of SQL statements stay GRDB's `DatabaseError`.
    public static let databaseUnavailable = Self(rawValue: "database unavailable")
}
