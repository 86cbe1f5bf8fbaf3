import Foundation

/// A primary key type: `Int64?` and `Int?` (auto-incremented, `nil` until the object is
/// inserted), `UUID` and `String` (chosen by the application).
///
/// ```swift
/// struct Note: Model { var id: UUID = UUID(); var text: String }
/// ```
public protocol ModelID: Storable, Hashable {}

extension UUID: ModelID {}
extension String: ModelID {}
extension Int64: ModelID {}
extension Int: ModelID {}
extension Optional: ModelID where Wrapped: ModelID & FixedWidthInteger {}

/// A key SQLite assigns on insert (`INTEGER PRIMARY KEY AUTOINCREMENT`): `Int64?` and `Int?`.
/// Internal, so that the hooks the store needs are not part of ``ModelID``'s public face.
protocol AutoIncrementedID {
    /// The key SQLite assigned, or `nil` when it does not fit this type.
    static func autoIncrementedID(rowID: Int64) -> Self?
}

extension Optional: AutoIncrementedID where Wrapped: ModelID & FixedWidthInteger {
    static func autoIncrementedID(rowID: Int64) -> Self? { Wrapped(exactly: rowID).map { .some($0) } }
}

extension ModelID {
    /// Whether SQLite assigns the key on insert.
    static var isAutoIncremented: Bool { Self.self is any AutoIncrementedID.Type }

    /// The key SQLite assigned, for auto-incremented keys; `nil` for the others.
    static func assigned(rowID: Int64) -> Self? {
        guard let type = Self.self as? any AutoIncrementedID.Type, let id = type.autoIncrementedID(rowID: rowID) else { return nil }
        return id as? Self
    }
}
