extension Vault {
    /// When the Keychain lets a process read an entry (`kSecAttrAccessible…`). Apple
    /// platforms only; encrypted file vaults ignore it (their key decides instead).
    ///
    /// ```swift
    /// let vault = try Vault(service: "com.example.notes", accessibility: .whenUnlockedThisDeviceOnly)
    /// ```
    public enum Accessibility: String, Sendable, CaseIterable {
        /// Only while the device is unlocked; migrates to a new device in a backup.
        case whenUnlocked
        /// After the first unlock following a restart, until the next restart; background
        /// work can read it. Migrates to a new device. The default.
        case afterFirstUnlock
        /// Only while unlocked, and never leaves this device.
        case whenUnlockedThisDeviceOnly
        /// After the first unlock, and never leaves this device.
        case afterFirstUnlockThisDeviceOnly
        /// Only while unlocked on a device with a passcode; deleted if the passcode is removed.
        case whenPasscodeSetThisDeviceOnly
    }
}
