/// The one error type of Stash.
///
/// Every module throws `StashError`, with a ``Code`` saying what went wrong and, where they
/// apply, the file path and the key involved. Match codes directly in `catch` clauses:
///
/// ```swift
/// do {
///     let settings = try archive.load()
/// } catch StashError.Code.corruptFile {
///     // the file exists but cannot be decoded; it was left untouched
/// } catch let error as StashError where error.code == .diskFull {
///     // …
/// } catch let error as StashError {
///     print(error) // "corrupt file: /…/settings.plist: unexpected end of data"
/// }
/// ```
public struct StashError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong. Modules add their own codes in extensions.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation, one line.
    public var reason: String
    /// The file involved, when there is one.
    public var path: String?
    /// The key involved, when there is one.
    public var key: String?
    /// The `errno` value of a failed system call, when there is one.
    public var posixCode: Int32?

    public init(_ code: Code, _ reason: String, path: String? = nil, key: String? = nil, errno: Int32? = nil) {
        self.code = code
        self.reason = reason
        self.path = path
        self.key = key
        self.posixCode = errno
    }

    public var description: String {
        var parts = [code.rawValue]
        if let path { parts.append(path) }
        if let key { parts.append("key '\(key)'") }
        parts.append(reason)
        return parts.joined(separator: ": ")
    }

}

extension StashError.Code {
    /// Lets `catch StashError.Code.corruptFile { … }` match on the code.
    public static func ~= (code: StashError.Code, error: any Error) -> Bool {
        (error as? StashError)?.code == code
    }
}

// MARK: - Codes shared by every module

extension StashError.Code {
    /// An application identifier, suite, service or group name is not a safe folder name.
    public static let invalidName = Self(rawValue: "invalid name")
    /// A key cannot be used (empty, too long, or a path trick such as `../`).
    public static let invalidKey = Self(rawValue: "invalid key")
    /// A value cannot be stored in this format (NaN, nil inside a collection, non-string keys…).
    public static let unsupportedValue = Self(rawValue: "unsupported value")
    /// A stored value exists but has another type than the one asked for.
    public static let typeMismatch = Self(rawValue: "type mismatch")
    /// A file exists but its content cannot be decoded. The file was left untouched.
    public static let corruptFile = Self(rawValue: "corrupt file")
    /// A file ends early (a torn or truncated write). The file was left untouched.
    public static let truncatedFile = Self(rawValue: "truncated file")
    /// A file, folder or entry does not exist.
    public static let notFound = Self(rawValue: "not found")
    /// The disk (or the quota) is full. Nothing acknowledged before was lost.
    public static let diskFull = Self(rawValue: "disk full")
    /// The operating system refused access (permissions, read-only file system).
    public static let permissionDenied = Self(rawValue: "permission denied")
    /// Another process holds a lock that this operation needs.
    public static let locked = Self(rawValue: "locked")
    /// The store was opened read-only, or another process is its writer.
    public static let readOnly = Self(rawValue: "read only")
    /// A stored format version is newer than this build understands, or no migration fits.
    public static let unsupportedVersion = Self(rawValue: "unsupported version")
    /// A store was used after `close()`.
    public static let closed = Self(rawValue: "closed")
    /// A store was asked to write between its `suspend()` and `resume()` (an app going to
    /// the background gives up its locks; see the App groups article).
    public static let suspended = Self(rawValue: "suspended")
    /// Any other failing system call; `errno` says which.
    public static let io = Self(rawValue: "i/o error")
}
