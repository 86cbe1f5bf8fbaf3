import StashCore

/// The `OSStatus` codes a Keychain vault tells apart (SecBase.h), and the ``StashError`` each
/// becomes.
enum KeychainStatus {
    /// `errSecSuccess`.
    static let success: Int32 = 0
    /// `errSecDuplicateItem`: an add found the item already there.
    static let duplicateItem: Int32 = -25299
    /// `errSecItemNotFound`.
    static let itemNotFound: Int32 = -25300
    /// `errSecInteractionNotAllowed`: the device is locked (or the item's accessibility class
    /// does not allow reading it now).
    static let interactionNotAllowed: Int32 = -25308
    /// `errSecMissingEntitlement`: the process is not signed with what the query needs (the
    /// data protection keychain on macOS, an access group).
    static let missingEntitlement: Int32 = -34018

    /// What a status means, for error messages (the framework's own wording, which
    /// `SecCopyErrorMessageString` would give on Apple platforms only).
    static func meaning(of status: Int32) -> String {
        switch status {
        case duplicateItem: "the item already exists"
        case itemNotFound: "the item cannot be found"
        case interactionNotAllowed: "the Keychain is locked: the device is locked, or the entry's accessibility does not allow reading it now"
        case missingEntitlement: "a required entitlement is missing (keychain-access-groups, or a signed app for the data protection keychain)"
        case -25291: "no keychain is available"
        case -25293: "the user name or passphrase is not correct"
        case -50: "a parameter is not valid"
        default: "Keychain error"
        }
    }

    /// `nil` for success; otherwise the error to throw: ``/StashCore/StashError/Code/locked`` while the
    /// Keychain is locked, ``/StashCore/StashError/Code/permissionDenied`` for a missing entitlement,
    /// ``StashError/Code/keychain`` for anything else. The message holds the action, the
    /// meaning and the `OSStatus`.
    static func error(_ status: Int32, _ action: String, key: String?) -> StashError? {
        let code: StashError.Code
        switch status {
        case success: return nil
        case interactionNotAllowed: code = .locked
        case missingEntitlement: code = .permissionDenied
        default: code = .keychain
        }
        return StashError(code, "\(action): \(meaning(of: status)) (OSStatus \(status))", key: key)
    }
}
