import Foundation

/// The one rule every Stash store uses to decide whether two string keys are the same key.
///
/// **Keys follow Swift's own `String` equality.** Two keys that are canonically equivalent
/// are one key in every store, in memory and on disk, before and after a reopen: `"café"`
/// written with the precomposed `é` (U+00E9) or with `e` and a combining acute accent
/// (U+0065 U+0301), `"Å"` as U+00C5 or as the Ångström sign U+212B. Stores that persist
/// keys (`Preferences`, `Vault`, `DiskCache`, `HybridCache`, `CacheStore`, `HTTPCache`)
/// save and look up the key's Unicode Normalization Form C, so bytes on disk compare the
/// way Swift compares strings. Keys that only look alike (Latin `a` and Cyrillic `а`,
/// full-width letters) are *not* equivalent and stay distinct keys.
///
/// **NUL is refused.** A key holding U+0000 cannot cross a C API intact, so every store that
/// takes string keys refuses it with `StashError.Code.invalidKey`, whatever its length.
@usableFromInline
package enum StoredKey: Sendable {
    /// The form of `key` a persistent store saves and looks up: its NFC normalization.
    ///
    /// - throws: `StashError(.invalidKey)` when `key` holds a NUL character.
    @inlinable
    package static func normalized(_ key: String) throws -> String {
        if isPlainASCII(key) { return key }
        return try normalizedBeyondASCII(key)
    }

    /// ``normalized(_:)`` of a key that is not plain ASCII: out of line, so that the check
    /// above is all a caller in another module inlines.
    @usableFromInline
    package static func normalizedBeyondASCII(_ key: String) throws -> String {
        try refuseNUL(key)
        return key.precomposedStringWithCanonicalMapping
    }

    /// Refuses a key holding U+0000 with `StashError(.invalidKey)`.
    package static func refuseNUL(_ key: String) throws {
        if key.utf8.contains(0) {
            throw StashError(.invalidKey, "a key may not contain a NUL character", key: printable(key))
        }
    }

    /// Whether `byte` may stand in a plain ASCII key: ASCII, and not NUL.
    @inlinable
    package static func isPlainASCII(_ byte: UInt8) -> Bool { byte != 0 && byte < 0x80 }

    /// Whether `key` is ASCII without NUL: such a key is already its own normal form.
    @inlinable
    package static func isPlainASCII(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { utf8 in
            for byte in utf8 where !isPlainASCII(byte) { return false }
            return true
        }
    }

    /// `key` with control characters escaped, for error messages and logs.
    package static func printable(_ key: String) -> String {
        var result = ""
        for scalar in key.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
