import Foundation
@testable import StashCore
import Testing

struct StoredKeyTests {
    @Test func canonicallyEquivalentKeysHaveOneStoredForm() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed) // Swift's own rule
        #expect(try StoredKey.normalized(composed) == StoredKey.normalized(decomposed))
        #expect(Array(try StoredKey.normalized(decomposed).utf8) == Array(composed.utf8))

        let angstromSign = "\u{212B}"
        let aWithRing = "\u{C5}"
        #expect(angstromSign == aWithRing)
        #expect(Array(try StoredKey.normalized(angstromSign).utf8) == Array(aWithRing.utf8))
    }

    @Test func lookAlikesStayDistinct() throws {
        let latin = "a"
        let cyrillic = "\u{430}"
        #expect(try StoredKey.normalized(latin) != StoredKey.normalized(cyrillic))
        let fullWidth = "\u{FF21}" // Ａ: compatibility, not canonical, equivalent to A
        #expect(try StoredKey.normalized(fullWidth) != "A")
    }

    @Test func asciiKeysAreTheirOwnForm() throws {
        for key in ["", "a", "user/42", "../etc/passwd", String(repeating: "k", count: 10_000)] {
            #expect(try StoredKey.normalized(key) == key)
        }
    }

    @Test func nulIsRefusedWherever() {
        for key in ["\0", "nul\0A", "caf\u{E9}\0", "\0\u{301}"] {
            do {
                _ = try StoredKey.normalized(key)
                Issue.record("accepted \(StoredKey.printable(key))")
            } catch let error as StashError {
                #expect(error.code == .invalidKey)
                let printed = Array((error.key ?? "").utf8)
                #expect(!printed.contains(0))
                #expect(printed.firstRange(of: Array("\\u{0}".utf8)) != nil)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }
}
