public import StashCore

// MARK: - Codes of StashSecure

extension StashError.Code {
    /// The passphrase does not open this vault. The vault was left untouched.
    ///
    /// ```swift
    /// do { _ = try vault.string(forKey: "token") }
    /// catch StashError.Code.wrongPassphrase { /* ask again */ }
    /// ```
    public static let wrongPassphrase = Self(rawValue: "wrong passphrase")
    /// The key (from a key file or the environment) does not open this vault, or the vault
    /// is locked by another kind of key. The vault was left untouched.
    public static let wrongKey = Self(rawValue: "wrong key")
    /// A vault file failed authentication: a byte was changed, a record was swapped or
    /// replayed. Nothing was decrypted and the file was left untouched.
    public static let tampered = Self(rawValue: "tampered vault")
    /// A master key file can be read or written by someone other than its owner (or belongs
    /// to another user). It was not used; fix it with `chmod 600`.
    public static let insecureKeyFile = Self(rawValue: "insecure key file")
    /// No key is available: the key file of an existing vault is missing, or the environment
    /// variable is unset or is not the base64 of 32 bytes.
    public static let keyUnavailable = Self(rawValue: "key unavailable")
    /// The Keychain refused an operation; `reason` carries its `OSStatus` and message.
    public static let keychain = Self(rawValue: "keychain error")
    /// The operation does not exist for this kind of vault (rotation of a Keychain vault).
    public static let notSupported = Self(rawValue: "not supported")
}
