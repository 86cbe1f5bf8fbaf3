import Foundation
import GRDB
import StashCore
import StashSQL

/// Turns SQLite's errors into ``/StashCore/StashError``s that name the model and attribute.
enum ObjectErrors {
    static func mapping<T>(path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw map(error, path: path)
        }
    }

    static func mapping<T>(path: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw map(error, path: path)
        }
    }

    /// What the failing statement was doing decides the code of a foreign-key failure.
    enum Operation { case write, delete }

    static func map(_ error: DatabaseError, path: String?, operation: Operation = .write, model: String? = nil) -> StashError {
        let message = error.message ?? "\(error)"
        // "UNIQUE constraint failed: person.name" names table and column.
        let subject = message.components(separatedBy: ": ").dropFirst().first.map { String($0) }
        var code = error.extendedResultCode
        if error.resultCode == .SQLITE_CONSTRAINT, message.contains("FOREIGN KEY") {
            code = .SQLITE_CONSTRAINT_FOREIGNKEY   // ON DELETE RESTRICT reports the bare code
        }
        switch code {
        case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY:
            return StashError(.uniqueViolation, "\(model.map { "\($0): " } ?? "")\(message); nothing was written", path: path, key: subject)
        case .SQLITE_CONSTRAINT_FOREIGNKEY:
            switch operation {
            case .delete:
                return StashError(.deleteDenied, "\(model.map { "\($0): " } ?? "")still referenced by a relationship whose delete rule is deny; nothing was deleted", path: path, key: model)
            case .write:
                return StashError(.missingRelatedObject, "\(model.map { "\($0): " } ?? "")a relationship points at an object that does not exist; nothing was written", path: path, key: model)
            }
        case .SQLITE_CONSTRAINT_NOTNULL:
            return StashError(.unsupportedValue, "\(message); nothing was written", path: path, key: subject)
        default:
            break
        }
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return StashError(.corruptFile, message, path: path)
        case .SQLITE_FULL:
            return StashError(.diskFull, message, path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StashError(.locked, message, path: path)
        case .SQLITE_READONLY:
            return StashError(.readOnly, message, path: path)
        case .SQLITE_CANTOPEN:
            return StashError(.databaseUnavailable, message, path: path)
        case .SQLITE_MISUSE where message.contains("closed"):
            return StashError(.closed, message, path: path)
        default:
            return StashError(.io, "SQLite: \(message)", path: path, key: model)
        }
    }
}
