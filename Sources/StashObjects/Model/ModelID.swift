import Foundation

/// A primary key type: `Int64?` and `Int?` (auto-incremented, `nil` until the object is
/// inserted), `UUID` and `String` (chosen by the application).
///
/// ```swift
/// struct Note: Model { var id: UUID = UUID(); var text: String }
/// ```
public protocol ModelID: Storable, Hashable {
    /// Whether SQLite assigns the key on insert (`INTEGER PRIMARY KEY AUTOINCREMENT`).
    static var isAutoIncremented: Bool { get }
    /// The key SQLite assigned, for auto-incremented keys; `nil` for the others.
    static func assigned(rowID: Int64) -> Self?
}

extension ModelID {
    public static var isAutoIncremented: Bool { false }
    public static func assigned(rowID: Int64) -> Self? { nil }
}

extension UUID: ModelID {}
extension String: ModelID {}
extension Int64: ModelID {}
extension Int: ModelID {}

extension Optional: ModelID where Wrapped: ModelID & FixedWidthInteger {
    public static var isAutoIncremented: Bool { true }
    public static func assigned(rowID: Int64) -> Self? { Wrapped(exactly: rowID).map { .some($0) } }
}
