import Foundation

/// A Keychain query, item or change in plain Swift: what `SecItemAdd`, `SecItemCopyMatching`,
/// `SecItemUpdate` and `SecItemDelete` take as a dictionary. Built and read by code that every
/// platform compiles; only ``SecurityFrameworkCalls`` turns it into a `CFDictionary`.
///
/// Keys and constant values are the strings behind the Security framework's constants
/// (`kSecAttrService` is `"svce"`, `kSecMatchLimitOne` is `"m_LimitOne"`: Apple's
/// `SecItemConstants.c`). The framework compares them by value, as it must for queries that
/// travel to `securityd`, so the bridged strings stand for the constants.
struct KeychainAttributes: Hashable, Sendable {
    /// The attribute keys a vault uses.
    enum Key: String, Hashable, Sendable, CaseIterable {
        /// `kSecClass`.
        case itemClass = "class"
        /// `kSecAttrService`.
        case service = "svce"
        /// `kSecAttrAccount`: the entry name.
        case account = "acct"
        /// `kSecAttrAccessGroup`.
        case accessGroup = "agrp"
        /// `kSecAttrAccessible`: a ``Vault/Accessibility/keychainValue``.
        case accessible = "pdmn"
        /// `kSecUseDataProtectionKeychain`.
        case dataProtectionKeychain = "nleg"
        /// `kSecValueData`.
        case valueData = "v_Data"
        /// `kSecReturnData`.
        case returnData = "r_Data"
        /// `kSecReturnAttributes`.
        case returnAttributes = "r_Attributes"
        /// `kSecMatchLimit`.
        case matchLimit = "m_Limit"
    }

    /// An attribute's value.
    enum Value: Hashable, Sendable {
        case string(String)
        case data(Data)
        case bool(Bool)

        /// The Foundation value that bridges to the CoreFoundation one.
        var object: Any {
            switch self {
            case .string(let string): return string
            case .data(let data): return data
            case .bool(let bool): return bool
            }
        }
    }

    /// `kSecClassGenericPassword`.
    static let genericPassword = "genp"
    /// `kSecMatchLimitOne`.
    static let matchLimitOne = "m_LimitOne"
    /// `kSecMatchLimitAll`.
    static let matchLimitAll = "m_LimitAll"

    var values: [Key: Value]

    init(_ values: [Key: Value] = [:]) {
        self.values = values
    }

    subscript(key: Key) -> Value? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// `self` with `other`'s values added, `other` winning.
    func merging(_ other: KeychainAttributes) -> KeychainAttributes {
        KeychainAttributes(values.merging(other.values) { _, new in new })
    }

    /// The entry name of a found item.
    var account: String? {
        if case .string(let account)? = values[.account] { return account }
        return nil
    }

    /// The value of a found item.
    var data: Data? {
        if case .data(let data)? = values[.valueData] { return data }
        return nil
    }

    /// The dictionary the Security calls take.
    var bridged: [String: Any] {
        Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, $0.value.object) })
    }

    /// An item as the Security calls answer it: the attributes a vault reads (account, value)
    /// and nothing else.
    init(bridged dictionary: [String: Any]) {
        var values: [Key: Value] = [:]
        if let account = dictionary[Key.account.rawValue] as? String { values[.account] = .string(account) }
        if let data = dictionary[Key.valueData.rawValue] as? Data { values[.valueData] = .data(data) }
        self.init(values)
    }
}

extension Vault.Accessibility {
    /// The `kSecAttrAccessible…` constant's string.
    var keychainValue: String {
        switch self {
        case .whenUnlocked: "ak"
        case .afterFirstUnlock: "ck"
        case .whenUnlockedThisDeviceOnly: "aku"
        case .afterFirstUnlockThisDeviceOnly: "cku"
        case .whenPasscodeSetThisDeviceOnly: "akpu"
        }
    }
}
