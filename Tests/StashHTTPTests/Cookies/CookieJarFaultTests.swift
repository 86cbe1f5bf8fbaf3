import Foundation
import StashCore
import StashHTTP
import StashTestSupport
import Testing

/// `CookieJar` under an I/O fault at each of its calls (see `FaultSweep`): a change made
/// through the jar's own API is saved before it returns, or throws and is not kept. The same
/// workload under simulated power cuts (`CrashExplorer`): every change that returned survives.
struct CookieJarFaultTests {
    private static func cookie(_ name: String, _ value: String) -> CookieJar.Cookie {
        CookieJar.Cookie(
            name: name, value: value, domain: "example.com", expires: Date().addingTimeInterval(86_400),
            created: Date(timeIntervalSince1970: 1_700_000_000)
        )
    }

    typealias Step = FaultSweep<CookieJar, [String: String]>.Step
    static var steps: [Step] { [
        Step("insert session", apply: { try $0.insert(Self.cookie("session", "s1")) }, change: { $0["session"] = "s1" }),
        Step("insert theme", apply: { try $0.insert(Self.cookie("theme", "dark")) }, change: { $0["theme"] = "dark" }),
        Step("replace session", apply: { try $0.insert(Self.cookie("session", "s2")) }, change: { $0["session"] = "s2" }),
        Step("remove all", apply: { try $0.removeAll() }, change: { $0 = [:] }),
        Step("insert consent", apply: { try $0.insert(Self.cookie("consent", "yes")) }, change: { $0["consent"] = "yes" }),
        // Long values, so that the jar file spans many sectors and a torn save has room to show.
        Step("insert cart", apply: { try $0.insert(Self.cookie("cart", Self.long("cart"))) }, change: { $0["cart"] = Self.long("cart") }),
        Step("insert prefs", apply: { try $0.insert(Self.cookie("prefs", Self.long("prefs"))) }, change: { $0["prefs"] = Self.long("prefs") }),
    ] }
    static func long(_ name: String) -> String { (0..<300).map { "\(name)\($0)" }.joined(separator: "-") }
    static var then: Step { Step("insert after", apply: { try $0.insert(Self.cookie("after", "1")) }, change: { $0["after"] = "1" }) }
    static func open(_ folder: URL) throws -> CookieJar { try CookieJar(directory: folder.appendingPathComponent("Cookies", isDirectory: true)) }
    static func read(_ jar: CookieJar) -> [String: String] { Dictionary(uniqueKeysWithValues: jar.cookies().map { ($0.name, $0.value) }) }

    @Test func everyFailedCallLeavesOneWholeJar() {
        let sweep = FaultSweep<CookieJar, [String: String]>(
            name: "CookieJar", initial: [:], open: Self.open, close: { $0.close() }, read: Self.read, steps: Self.steps, then: Self.then
        )
        let report = sweep.run()
        #expect(report.calls > 20)
        #expect(report.injected == report.calls)
        #expect(report.problems.isEmpty, "\(report.problems.joined(separator: "\n"))")
    }

    @Test(arguments: PersistenceModel.allCases)
    func everyChangeThatReturnedSurvivesAPowerCut(model: PersistenceModel) async {
        let report = await offThePool { CrashExplorer<Int>("cookie jar", model: model).run(
            initial: [:], open: Self.open, close: { $0.close() }, read: Self.read, steps: Self.steps, then: Self.then
        ) }
        #expect(report.states >= 20, "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }
}
