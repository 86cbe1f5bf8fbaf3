import Foundation

/// The condition of an `#if` or `#elseif`, evaluated for one platform: `os(…)`, `canImport(…)`,
/// `arch(…)`, `compiler(…)`, `swift(…)`, `targetEnvironment(…)`, build flags, `!`, `&&`, `||`
/// and parentheses, as the Swift reference's conditional compilation block allows.
struct CompilationCondition {
    /// What a platform answers to the conditions.
    struct Platform: Hashable, CustomStringConvertible {
        /// The name `os(…)` tests.
        var os: String
        /// The modules `canImport(…)` finds.
        var modules: Set<String>
        /// What `_pointerBitWidth(…)` tests: `_32` on Apple Watch devices (arm64_32).
        var pointerBitWidth = "_64"

        var description: String { os }

        /// Modules every platform has.
        static let everywhere: Set<String> = ["Foundation", "Dispatch", "Observation", "Synchronization", "GRDBSQLite", "Testing"]

        /// Where the tests run: Linux with glibc.
        static let linux = Platform(os: "Linux", modules: everywhere.union(["Glibc", "FoundationNetworking", "CDispatch"]))

        /// Every Apple platform the package declares.
        static let apple: [Platform] = ["macOS", "iOS", "tvOS", "watchOS", "visionOS"].map { os in
            var modules = everywhere.union(["Darwin", "Security", "ObjectiveC", "SwiftUI"])
            modules.insert(os == "macOS" ? "AppKit" : "UIKit")
            return Platform(os: os, modules: modules, pointerBitWidth: os == "watchOS" ? "_32" : "_64")
        }

        /// Modules any platform might name; `canImport` of another is an error, so that a new
        /// module is classified before it is counted.
        static let known: Set<String> = apple.reduce(linux.modules) { $0.union($1.modules) }.union(["Musl", "WinSDK", "Android"])
        /// Every `os(…)` name Swift knows.
        static let knownSystems: Set<String> = ["Linux", "macOS", "iOS", "tvOS", "watchOS", "visionOS", "Windows", "FreeBSD", "OpenBSD", "Android", "WASI", "Cygwin", "Haiku", "PS4", "none"]
    }

    /// A condition that cannot be read, with why.
    struct Unreadable: Error, CustomStringConvertible {
        var text: String
        var reason: String
        var description: String { "cannot evaluate `#if \(text)`: \(reason)" }
    }

    /// Build flags set in every configuration (`-D`); every other flag is unset everywhere, so
    /// flags never make a line platform-specific.
    static let flagsSet: Set<String> = ["DEBUG"]

    /// Whether `text` (what follows `#if` or `#elseif`) holds on `platform`.
    static func holds(_ text: String, on platform: Platform) throws -> Bool {
        var parser = Parser(text: text, platform: platform)
        let value = try parser.disjunction()
        parser.skipSpaces()
        guard parser.isAtEnd else { throw Unreadable(text: text, reason: "unexpected text at \(parser.rest)") }
        return value
    }

    private struct Parser {
        let text: String
        let platform: Platform
        var index: String.Index

        init(text: String, platform: Platform) {
            self.text = text
            self.platform = platform
            index = text.startIndex
        }

        var isAtEnd: Bool { index == text.endIndex }
        var rest: String { String(text[index...]) }

        mutating func skipSpaces() {
            while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
        }

        mutating func take(_ token: String) -> Bool {
            skipSpaces()
            guard text[index...].hasPrefix(token) else { return false }
            index = text.index(index, offsetBy: token.count)
            return true
        }

        mutating func disjunction() throws -> Bool {
            var value = try conjunction()
            while take("||") { value = try conjunction() || value }
            return value
        }

        mutating func conjunction() throws -> Bool {
            var value = try unary()
            while take("&&") { value = try unary() && value }
            return value
        }

        mutating func unary() throws -> Bool {
            if take("!") { return try !unary() }
            if take("(") {
                let value = try disjunction()
                guard take(")") else { throw Unreadable(text: text, reason: "missing )") }
                return value
            }
            return try atom()
        }

        mutating func atom() throws -> Bool {
            skipSpaces()
            let start = index
            while index < text.endIndex, text[index].isLetter || text[index].isNumber || text[index] == "_" {
                index = text.index(after: index)
            }
            let name = String(text[start..<index])
            guard !name.isEmpty else { throw Unreadable(text: text, reason: "expected a condition at \(rest)") }
            guard take("(") else {
                if name == "true" || name == "false" { return name == "true" }
                return CompilationCondition.flagsSet.contains(name)
            }
            let argumentStart = index
            while index < text.endIndex, text[index] != ")" { index = text.index(after: index) }
            guard index < text.endIndex else { throw Unreadable(text: text, reason: "missing )") }
            let argument = text[argumentStart..<index].trimmingCharacters(in: .whitespaces)
            index = text.index(after: index)
            switch name {
            case "os":
                guard Platform.knownSystems.contains(argument) else { throw Unreadable(text: text, reason: "unknown system \(argument)") }
                return argument == platform.os
            case "canImport":
                let module = argument.split(separator: ",")[0].trimmingCharacters(in: .whitespaces)
                guard Platform.known.contains(module) else {
                    throw Unreadable(text: text, reason: "unknown module \(module): add it to CompilationCondition.Platform")
                }
                return platform.modules.contains(module)
            case "targetEnvironment":
                return false  // neither a simulator nor Mac Catalyst: both are Apple platforms anyway
            case "_pointerBitWidth":
                return argument == platform.pointerBitWidth
            case "arch", "compiler", "swift", "hasFeature", "hasAttribute", "_endian":
                return true  // the same answer on every platform the package builds for
            default:
                throw Unreadable(text: text, reason: "unknown test \(name)(…)")
            }
        }
    }
}
