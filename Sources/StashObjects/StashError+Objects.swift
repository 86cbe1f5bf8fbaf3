public import StashCore

extension StashError.Code {
    /// A query or entity names a key path that is not a stored attribute of the model.
    public static let unknownAttribute = Self(rawValue: "unknown attribute")
    /// A write would give two objects the same value of a unique attribute. Nothing written.
    public static let uniqueViolation = Self(rawValue: "unique violation")
    /// Deleting an object that a `deny` relationship still references. Nothing written.
    public static let deleteDenied = Self(rawValue: "delete denied")
    /// A relationship points at an object that does not exist. Nothing written.
    public static let missingRelatedObject = Self(rawValue: "missing related object")
    /// A context saves an object that changed in the store since it was fetched.
    public static let conflict = Self(rawValue: "conflict")
}

extension StashError.Code {
    /// A model type is used with a store whose schema does not list it.
    public static let unknownModel = Self(rawValue: "unknown model")
    /// A migration step failed, or a change needs an explicit step; the file was left as it was.
    public static let migrationFailed = Self(rawValue: "migration failed")
    /// A model's declaration cannot be stored as written, for example the delete rule
    /// `nullify` on a non-optional attribute. Thrown when the store opens, before anything
    /// is written; the error's key names `Model.attribute`.
    public static let invalidSchema = Self(rawValue: "invalid schema")
}

extension StashError.Code {
    /// An ``ObjectGraph`` was asked for a relationship its prefetch did not include.
    public static let notPrefetched = Self(rawValue: "not prefetched")
}
