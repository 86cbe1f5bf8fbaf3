import Foundation
import GRDB
import StashCache
import StashCore
import StashTestSupport
import Testing

/// The key identity rule (`StoredKey`) in a disk cache: NUL refused, canonically equivalent
/// keys one key before and after a reopen, and manifests of earlier versions, which saved
/// keys as given, opened without losing or swapping a value.
struct DiskCacheKeyTests {
    let fixture = DiskCacheFixture()

    static let cafeNFC = "caf\u{E9}"
    static let cafeNFD = "cafe\u{301}"
    static let angstromSign = "\u{212B}"
    static let aRing = "\u{C5}"

    @Test func keysWithNULAreRefusedAndNothingIsStored() throws {
        let cache = try fixture.open()
        try cache.set(Data("plain".utf8), forKey: "nul")
        for key in ["nul\0A", "\0", "a\0", "caf\u{E9}\0"] {
            expectError(.invalidKey) { try cache.set(Data("x".utf8), forKey: key) }
            #expect(cache.data(forKey: key) == nil)
            #expect(!cache.contains(key))
        }
        expectError(.invalidKey) { try cache.set(Data(count: 100_000), forKey: "big\0.png") }
        try cache.close()
        let reopened = try fixture.open()
        #expect(reopened.data(forKey: "nul") == Data("plain".utf8))
        #expect(reopened.count == 1)
        try reopened.close()
    }

    @Test(arguments: [(cafeNFC, cafeNFD), (aRing, angstromSign)], [10, 100_000])
    func canonicallyEquivalentKeysAreOneKeyAcrossReopen(pair: (String, String), size: Int) throws {
        let (first, second) = pair
        #expect(first == second)                   // Swift's rule
        #expect(!first.utf8.elementsEqual(second.utf8))
        let cache = try fixture.open()
        try cache.set(.filled(1, size), forKey: first)
        try cache.set(.filled(2, size), forKey: second)
        try cache.set(.filled(3, size), forKey: "other")
        #expect(cache.count == 2)
        #expect(cache.data(forKey: first) == .filled(2, size))
        try cache.close()

        let reopened = try fixture.open()
        #expect(reopened.recovery.isClean, "\(reopened.recovery)")
        #expect(reopened.count == 2)
        #expect(reopened.data(forKey: first) == .filled(2, size))
        #expect(reopened.data(forKey: second) == .filled(2, size))
        #expect(reopened.data(forKey: "other") == .filled(3, size))
        #expect(try reopened.entries().map(\.key).contains { $0.utf8.elementsEqual(first.precomposedStringWithCanonicalMapping.utf8) })
        reopened.removeValue(forKey: first)
        #expect(reopened.data(forKey: second) == nil)
        try reopened.close()
        let inspection = try ManifestInspection(directory: fixture.directory)
        #expect(inspection.orphanFiles.isEmpty && inspection.rowsWithoutFile.isEmpty)
    }

    /// A manifest written before keys were normalized holds `café` twice (NFC and NFD) and
    /// `Å` as the Ångström sign, each with its own file named after its own bytes. Opening
    /// it keeps the newest value of each key, with its file, and deletes no live file.
    @Test func manifestsOfEarlierVersionsAreNormalizedWithoutLosingValues() throws {
        let cache = try fixture.open()
        try cache.set(.filled(9, 50_000), forKey: "placeholder.bin")
        try cache.close()
        let files = fixture.directory.appendingPathComponent("files")
        let database = try DatabaseQueue(path: fixture.directory.appendingPathComponent("manifest.sqlite").path)
        func insert(_ db: Database, _ key: String, _ byte: UInt8, created: Double, file: Bool) throws {
            let value = Data.filled(byte, file ? 50_000 : 16)
            var name: String?
            if file {
                name = SHA256.hexDigest(of: key)                     // the old naming, raw bytes
                try value.write(to: files.appendingPathComponent(name!))
            }
            try db.execute(
                sql: "INSERT INTO entry (key, size, file, created, accessed, data) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [key, value.count, name, created, created, file ? nil : value]
            )
        }
        try database.write { db in
            try insert(db, Self.cafeNFC, 1, created: 1_000_000, file: true)
            try insert(db, Self.cafeNFD, 2, created: 1_000_100, file: true)       // newer: wins
            try insert(db, Self.angstromSign, 3, created: 1_000_000, file: true)  // alone, not NFC
            try insert(db, "e\u{301}t\u{E9}", 4, created: 1_000_000, file: false) // inline, not NFC
        }
        try database.close()

        let reopened = try fixture.open()
        #expect(reopened.recovery.normalizedKeys == 3, "\(reopened.recovery)")
        #expect(reopened.recovery.removedEntries == 1, "\(reopened.recovery)")
        #expect(reopened.recovery.removedFiles == 0, "\(reopened.recovery)")
        #expect(reopened.data(forKey: Self.cafeNFC) == .filled(2, 50_000))
        #expect(reopened.data(forKey: Self.cafeNFD) == .filled(2, 50_000))
        #expect(reopened.data(forKey: Self.aRing) == .filled(3, 50_000))
        #expect(reopened.data(forKey: "\u{E9}t\u{E9}") == .filled(4, 16))
        #expect(reopened.data(forKey: "placeholder.bin") == .filled(9, 50_000))
        #expect(reopened.count == 4)
        try reopened.close()

        let inspection = try ManifestInspection(directory: fixture.directory)
        #expect(inspection.orphanFiles.isEmpty, "\(inspection.orphanFiles)")
        #expect(inspection.rowsWithoutFile.isEmpty, "\(inspection.rowsWithoutFile)")
        // Three file-backed values (the two normalized keys and the placeholder), each
        // still in the file its row named.
        #expect(inspection.fileRows.values.filter { $0 == 50_000 }.count == 3, "\(inspection.fileRows)")

        let again = try fixture.open()
        #expect(again.recovery.isClean, "\(again.recovery)")
        #expect(again.data(forKey: Self.angstromSign) == .filled(3, 50_000))
        try again.close()
    }
}
