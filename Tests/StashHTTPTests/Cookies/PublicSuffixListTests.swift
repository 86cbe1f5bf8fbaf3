import Foundation
import StashCore
@testable import StashHTTP
import StashTestSupport
import Testing

/// Public suffixes: the Public Suffix List's rules, the Debian data file, the built-in list.
struct PublicSuffixListTests {
    @Test func rulesWildcardsAndExceptions() throws {
        let list = try PublicSuffixList(rules: "// comment\ncom\nco.uk\n*.ck\n!www.ck\n公司.cn\n")
        #expect(list.isPublicSuffix("com"))
        #expect(list.isPublicSuffix("co.uk"))
        #expect(!list.isPublicSuffix("example.co.uk"))
        #expect(list.isPublicSuffix("anything.ck"))
        #expect(!list.isPublicSuffix("www.ck"))
        #expect(list.registrableDomain(of: "a.b.example.co.uk") == "example.co.uk")
        #expect(list.registrableDomain(of: "www.ck") == "www.ck")
        #expect(list.registrableDomain(of: "a.b.ck") == "a.b.ck")
        #expect(list.registrableDomain(of: "co.uk") == nil)
        #expect(list.isPublicSuffix("xn--55qx5d.cn"))
        #expect(list.isPublicSuffix("公司.cn"))
        // The implicit `*` rule: every single label is a public suffix.
        #expect(list.isPublicSuffix("zz"))
        #expect(list.registrableDomain(of: "127.0.0.1") == nil)
    }

    @Test func builtInListKnowsTheCommonSuffixes() {
        let list = PublicSuffixList.builtIn
        for suffix in ["com", "co.uk", "com.au", "co.jp", "github.io", "herokuapp.com", "anything.ck"] {
            #expect(list.isPublicSuffix(suffix), "\(suffix)")
        }
        for domain in ["example.com", "example.co.uk", "user.github.io", "www.ck"] {
            #expect(!list.isPublicSuffix(domain), "\(domain)")
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: PublicSuffixList.debianFile.path)))
    func theDebianFileIsTheSystemList() throws {
        let list = PublicSuffixList.system
        #expect(list.source == PublicSuffixList.debianFile.path)
        #expect(list.count > 5000)
        #expect(list.isPublicSuffix("s3.amazonaws.com"))
        #expect(list.isPublicSuffix("xn--55qx5d.cn"))
        #expect(list.isPublicSuffix("city.kawasaki.jp") == false)
        #expect(list.registrableDomain(of: "www.bbc.co.uk") == "bbc.co.uk")
    }

    @Test func filesThatAreNotAListAreRefused() throws {
        let folder = TemporaryFolder("psl")
        let empty = folder.url.appendingPathComponent("empty.dat")
        try Data("// only comments\n".utf8).write(to: empty)
        expectCookieError(.corruptFile) { try PublicSuffixList(contentsOf: empty) }
        let binary = folder.url.appendingPathComponent("binary.dat")
        try Data([0xFF, 0xFE, 0x00]).write(to: binary)
        expectCookieError(.corruptFile) { try PublicSuffixList(contentsOf: binary) }
        expectCookieError(.invalidHost) { try PublicSuffixList(rules: "bad/host\n") }
    }
}
