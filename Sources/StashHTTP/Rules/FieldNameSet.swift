#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
package import HTTPTypes

/// A fixed handful of field names that every request is checked against on the hit path
/// (conditionals, fields that send a request through the full flow, fields never forwarded),
/// or that a parser recognises in raw bytes to reuse a name already made.
///
/// ```swift
/// static let conditionals = FieldNameSet([.ifNoneMatch, .ifModifiedSince, .range])
/// if Self.conditionals.containsAny(of: request.headerFields) { … }
/// let name = common.member(spelled: rawBytes) ?? HTTPField.Name(String(decoding: rawBytes, as: UTF8.self))
/// let role = common.position(spelled: rawBytes).map { roles[$0] } // facts kept beside the members, by position
/// let anyCase = common.position(anyCase: rawBytes)                    // "USER-AGENT" too
/// ```
///
/// It answers by length, then by bytes: a `Set` hashes every name it is asked about (a
/// seeded SipHash of the whole name), and a browser's request carries about ten fields, so
/// on a cache hit the hashing cost more than the lookup it guarded. A name that differs in
/// length from every member costs one bit test; one that does not is compared only with
/// the members of its length. Immutable, so `Sendable` and safe to read from any thread.
package struct FieldNameSet: Sendable {
    /// Bit `n` is set when a member is `n` bytes long (members are 1 to 63 bytes long).
    private let lengths: UInt64
    /// The members' canonical (lowercased) names.
    private let canonical: [[UInt8]]
    /// The members' names as spelled when made (`rawName`).
    private let spellings: [[UInt8]]
    /// The members, in the order of ``canonical`` and ``spellings``.
    private let names: [HTTPField.Name]
    /// For each length below 64, the positions of the members that long.
    private let positionsByLength: [[Int]]

    /// The set of `names`, compared by their canonical (lowercased) form.
    package init(_ names: [HTTPField.Name]) {
        var lengths: UInt64 = 0
        for name in names {
            let count = name.canonicalName.utf8.count
            precondition((1..<64).contains(count) && name.rawName.utf8.count == count, "a member of a FieldNameSet is 1 to 63 bytes long: \(name)")
            lengths |= 1 << UInt64(count)
        }
        self.lengths = lengths
        var positionsByLength = [[Int]](repeating: [], count: 64)
        for (position, name) in names.enumerated() { positionsByLength[name.canonicalName.utf8.count].append(position) }
        self.positionsByLength = positionsByLength
        self.canonical = names.map { Array($0.canonicalName.utf8) }
        self.spellings = names.map { Array($0.rawName.utf8) }
        self.names = names
    }

    /// The set of the field names spelled `names`, which are the program's own constants:
    /// a name that is not a field name token, or longer than 63 bytes, stops the program.
    package init(spelled names: some Sequence<String>) {
        self.init(names.map { HTTPField.Name($0)! })
    }

    /// The members, in the order they were given.
    package var members: [HTTPField.Name] { names }

    /// Whether `name` is a member.
    package func contains(_ name: HTTPField.Name) -> Bool {
        position(of: name) != nil
    }

    /// The position, in ``members``, of the member `name` is (by canonical name).
    package func position(of name: HTTPField.Name) -> Int? {
        var canonicalName = name.canonicalName
        return canonicalName.withUTF8 { index(of: UnsafeRawBufferPointer($0), in: canonical) }
    }

    /// Whether any of `fields` has a member's name.
    package func containsAny(of fields: HTTPFields) -> Bool {
        fields.contains { contains($0.name) }
    }

    /// The member spelled exactly `bytes` (its `rawName`), so that a parser reuses the name
    /// already made rather than making, checking and lowercasing a new one; `nil` for any
    /// other spelling, which the parser makes itself.
    package func member(spelled bytes: UnsafeRawBufferPointer) -> HTTPField.Name? {
        position(spelled: bytes).map { names[$0] }
    }

    /// The position, in ``members``, of the member spelled exactly `bytes` (see
    /// ``member(spelled:)``).
    package func position(spelled bytes: UnsafeRawBufferPointer) -> Int? {
        index(of: bytes, in: spellings)
    }

    /// The position, in ``members``, of the member `bytes` name in any case spelling
    /// (compared with its canonical name, ASCII letters lowercased), so that a parser sorts
    /// a name it has not made an `HTTPField.Name` for. `bytes` are a field name token
    /// (``Swift/UInt8/isTokenCharacter``).
    ///
    /// ```swift
    /// let role = special.position(anyCase: rawBytes).map { roles[$0] } ?? .kept // "CACHE-control" too
    /// ```
    package func position(anyCase bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        guard count < 64, lengths & (1 << UInt64(count)) != 0 else { return nil }
        for position in positionsByLength[count] where canonical[position].withUnsafeBytes({ Self.isSpelling(bytes, of: $0) }) {
            return position
        }
        return nil
    }

    /// Whether `bytes` spell the canonical (lowercased) field name `canonical` in any case.
    ///
    /// ```swift
    /// FieldNameSet.isSpelling(lineName, of: wanted) // "ACCEPT-language" spells "accept-language"
    /// ```
    package static func isSpelling(_ bytes: UnsafeRawBufferPointer, of canonical: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == canonical.count else { return false }
        for offset in 0..<bytes.count {
            let byte = bytes[offset]
            if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != canonical[offset] { return false }
        }
        return true
    }

    private func index(of bytes: UnsafeRawBufferPointer, in list: [[UInt8]]) -> Int? {
        let count = bytes.count
        guard count < 64, lengths & (1 << UInt64(count)) != 0 else { return nil }
        for position in positionsByLength[count]
        where list[position].withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, count) }) == 0 {
            return position
        }
        return nil
    }
}
