import Foundation
import StashCache
import StashCore
import Testing

struct DiskFileNameTests {
    @Test func sha256MatchesTheStandardTestVectors() {
        #expect(SHA256.hexDigest(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hexDigest(of: String(repeating: "a", count: 1000))
            == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func fileNamesKeepShortExtensionsOnly() throws {
        let cache = try DiskCacheFixture().open { $0.inlineThreshold = 0 }
        let cases: [(String, String?)] = [
            ("https://example.com/a/b.JPG?w=2#top", "jpg"),
            ("photo.webp", "webp"),
            ("no-extension", nil),
            (".hidden", nil),
            ("archive.tar.gz", "gz"),
            ("weird.ext/with/slash", nil),
            ("long.extensionthatistoolong", nil),
            ("dots.", nil),
        ]
        for (key, pathExtension) in cases {
            try cache.set(Data("x".utf8), forKey: key)
            let name = try #require(cache.fileURL(for: key)).lastPathComponent
            // The key's hash, a 16-digit generation, then the extension.
            let stem = SHA256.hexDigest(of: key) + "-"
            #expect(name.hasPrefix(stem), "\(key)")
            let rest = name.dropFirst(stem.count)
            let generation = rest.prefix(16)
            #expect(generation.count == 16 && generation.allSatisfy { $0.isHexDigit }, "\(key)")
            #expect(rest.dropFirst(16) == (pathExtension.map { "." + $0 } ?? ""), "\(key)")
        }
    }
}
