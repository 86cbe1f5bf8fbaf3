import Foundation
import StashCore
import StashHTTP
import StashTestSupport
import Testing

/// `CookieJar` under an I/O fault at each of its calls (see `FaultSweep`): a change made
/// through the jar's own API is saved before it returns, or throws and is not kept.
struct CookieJarFaultTests {
    private static func cookie(_ name: String, _ value: String) -> CookieJar.Cookie {
        CookieJar.Cookie(
            name: name, value: value, domain: "example.com", expires: Date().addingTimeInterval(86_400),
            created: Date(timeIntervalSince1970: 1_700_000_000)
        )
    }

    @Test func everyFailedCallLeavesOneWholeJar() {
        typealias Step = FaultSweep<CookieJar, [String: String]>.Step
        let sweep = FaultSweep<CookieJar, [String: String]>(
            name: "CookieJar", initial: [:],
            open: { try CookieJar(directory: $0.appendingPathComponent("Cookies", isDirectory: true)) },
            close: { $0.close() },
            read: { jar in Dictionary(uniqueKeysWithValues: jar.cookies().map { ($0.name, $0.value) }) },
            steps: [
                Step("insert session", apply: { try $0.insert(Self.cookie("session", "s1")) }, change: { $0["session"] = "s1" }),
                Step("insert theme", apply: { try $0.insert(Self.cookie("theme", "dark")) }, change: { $0["theme"] = "dark" }),
                Step("replace session", apply: { try $0.insert(Self.cookie("session", "s2")) }, change: { $0["session"] = "s2" }),
                Step("remove all", apply: { try $0.removeAll() }, change: { $0 = [:] }),
                Step("insert consent", apply: { try $0.insert(Self.cookie("consent", "yes")) }, change: { $0["consent"] = "yes" }),
            ],
            then: Step("insert after", apply: { try $0.insert(Self.cookie("after", "1")) }, change: { $0["after"] = "1" })
        )
        let report = sweep.run()
        #expect(report.calls > 20)
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }
}
