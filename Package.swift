// swift-tools-version: 6.1
import CompilerPluginSupport
import Foundation
import PackageDescription

// Stash: an application's whole local data layer.
//
// Heavy dependencies stay at the edges: GRDB only where SQLite is used, swift-crypto only in
// StashSecure, swift-syntax only in the `@Model` plugin (and the expansion it runs), AsyncHTTPClient in
// StashHTTPAsyncClient, Hummingbird in StashHTTPServer and StashPostgresHummingbird (the
// adapter that joins it to the PostgreSQL cache), postgres-nio (and the NIO it needs) in
// StashPostgres; the executables and tests link what they use. `import Stash` never compiles
// a web server, and `import StashPostgres` compiles no web framework. The module table in
// README.md and docs/ARCHITECTURE.md lists every target's dependencies: a test
// (StashDocsTests) compares it with this manifest.
//
// The server parts (the proxy, the PostgreSQL cache, their transports and tools) sit behind the
// package trait `Server`: every dependency on a server-only package is conditional on it, so an
// app that depends on Stash without the trait resolves only GRDB, swift-crypto (and swift-asn1),
// swift-syntax, swift-http-types and swift-log (AppGraphTests checks it against the README). A
// server package enables it on its `.package` line: `traits: ["Server"]`.
//
// In a clone of this repository (the root package: `swift run stash tour`, `swift test`) the
// trait is on by default, so those two commands build and test every part. SwiftPM reads a
// dependency's manifest from its repository (package directory `/`) or from a checkout under
// `checkouts/`, where the default stays off.

/// The trait that brings the server parts and their packages.
let serverTrait = "Server"

/// True when this manifest is the package being built (a clone's working tree), false when
/// SwiftPM reads it as another package's dependency.
let isRootPackage: Bool = {
    let directory = Context.packageDirectory
    return !directory.contains("/checkouts/")
        && FileManager.default.fileExists(atPath: directory + "/Package.swift")
}()

/// A product of a package that only the server parts use, needed only with the `Server` trait.
func server(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: [serverTrait]))
}

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Stash",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "Stash", targets: ["Stash"]),
        .library(name: "StashCore", targets: ["StashCore"]),
        .library(name: "StashSQL", targets: ["StashSQL"]),
        .library(name: "StashObjects", targets: ["StashObjects"]),
        // `@Model`, which writes a model's row code: its own product, so that an app that does not
        // use the macro never compiles swift-syntax.
        .library(name: "StashObjectsMacros", targets: ["StashObjectsMacros"]),
        .library(name: "StashCache", targets: ["StashCache"]),
        .library(name: "StashPreferences", targets: ["StashPreferences"]),
        .library(name: "StashSecure", targets: ["StashSecure"]),
        .library(name: "StashHTTP", targets: ["StashHTTP"]),
        .library(name: "StashHTTPAsyncClient", targets: ["StashHTTPAsyncClient"]),
        .library(name: "StashHTTPServer", targets: ["StashHTTPServer"]),
        .library(name: "StashPostgres", targets: ["StashPostgres"]),
        .library(name: "StashPostgresHummingbird", targets: ["StashPostgresHummingbird"]),
        .library(name: "StashPostgresHTTP", targets: ["StashPostgresHTTP"]),
        .executable(name: "stash", targets: ["StashCLI"]),
        .library(name: "StashTesting", targets: ["StashTesting"]),
    ],
    traits: [
        .trait(
            name: serverTrait,
            description: "The caching proxy, the PostgreSQL shared cache, the AsyncHTTPClient transport and the stash tool"
        ),
        .default(enabledTraits: isRootPackage ? [serverTrait] : []),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Macro libraries accept every swift-syntax a client may pin (600 to 603). Built and
        // tested against the newest of them that resolves (603.0.1 on CI); the APIs the plugin
        // and its tests use were checked by reading 600.0.1's sources, not by a build.
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.0"..<"604.0.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: Libraries

        .target(name: "StashCore", dependencies: ["CStashChecksum"], swiftSettings: strictSettings),
        .target(
            name: "StashSQL",
            dependencies: ["StashCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StashObjects",
            dependencies: ["StashCore", "StashSQL", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        // The `@Model` macro: its declaration (StashObjectsMacros), its compiler plugin
        // (StashObjectsMacroPlugin) and the expansion the plugin runs (StashObjectsMacroExpansion,
        // an ordinary target so the tests need no macro target: a test product depending on one
        // is built for the host together with everything it links, the whole package again).
        // Only the plugin and the expansion (and the macro tests) see swift-syntax.
        .target(
            name: "StashObjectsMacros",
            dependencies: ["StashObjects", "StashObjectsMacroPlugin"],
            swiftSettings: strictSettings
        ),
        .macro(
            name: "StashObjectsMacroPlugin",
            dependencies: [
                "StashObjectsMacroExpansion",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StashObjectsMacroExpansion",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StashCache",
            dependencies: ["StashCore", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .target(name: "StashPreferences", dependencies: ["StashCore"], swiftSettings: strictSettings),
        // CRC-32 folded with the processor's carry-less multiply (StashCore's `CRC32`).
        .target(name: "CStashChecksum"),
        .target(
            name: "StashSecure",
            dependencies: [
                "StashCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // A Keychain vault that falls back to a file says so in the log.
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StashHTTP",
            dependencies: ["StashCore", "StashCache", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StashHTTPAsyncClient",
            dependencies: [
                "StashHTTP",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
                server("NIOFoundationCompat", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The HTTP/1.1 request heads the proxy reads from a connection's raw bytes before NIO's
        // decoder: apart from the server so that the fuzz executable, which compares the two
        // readings, builds it without Hummingbird, AsyncHTTPClient or NIOSSL.
        .target(
            name: "StashHTTPWire",
            dependencies: [
                "StashHTTP",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("NIOCore", "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The differential comparison of StashHTTPWire's reading with NIO's HTTP/1 decoder (on
        // an EmbeddedChannel), for the fuzz executable and the tests: apart, so that the server
        // library never links NIOEmbedded.
        .target(
            name: "StashHTTPWireFuzzing",
            dependencies: [
                "StashHTTP", "StashHTTPWire",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOEmbedded", "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StashHTTPServer",
            dependencies: [
                "StashHTTP",
                "StashHTTPWire",
                "StashHTTPAsyncClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("Hummingbird", "hummingbird"),
                server("HummingbirdCore", "hummingbird"),
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                server("Metrics", "swift-metrics"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // For users' own tests: a temporary sandbox and the manual clock.
        .target(name: "StashTesting", dependencies: ["StashCore"], swiftSettings: strictSettings),
        // The shared cache for server fleets, on PostgreSQL. Not in the umbrella: `import Stash`
        // never compiles a PostgreSQL client. swift-service-lifecycle (`SharedCache` is a
        // `Service`), swift-metrics (its counters) and swift-log are postgres-nio's own
        // dependencies, so they add nothing to compile.
        .target(
            name: "StashPostgres",
            dependencies: [
                "StashCore", "StashCache",
                server("PostgresNIO", "postgres-nio"),
                server("NIOCore", "swift-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("Metrics", "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // `SharedCache` as Hummingbird's `PersistDriver` (sessions, rate limits): apart, so that
        // a user of the shared cache never compiles Hummingbird.
        .target(
            name: "StashPostgresHummingbird",
            dependencies: ["StashCache", "StashPostgres", server("Hummingbird", "hummingbird")],
            swiftSettings: strictSettings
        ),
        // `SharedCache` as the shared storage of an `HTTPCache`, for a fleet of caching proxies.
        .target(name: "StashPostgresHTTP", dependencies: ["StashHTTP", "StashPostgres"], swiftSettings: strictSettings),
        .target(
            name: "Stash",
            dependencies: ["StashCore", "StashObjects", "StashCache", "StashPreferences", "StashSecure", "StashHTTP"],
            swiftSettings: strictSettings
        ),

        // The loopback servers and sockets, and the peak-memory reader, that the tour, the
        // benchmark and the tests share. Not a product: no user links it.
        .target(name: "StashToolSupport", dependencies: ["StashCore"], swiftSettings: strictSettings),

        // MARK: Executables

        .executableTarget(
            name: "StashCLI",
            dependencies: [
                // StashObjects named directly (the tour's models): see StashTestHost.
                "Stash", "StashObjects", "StashSQL", "StashHTTPAsyncClient", "StashHTTPServer", "StashPostgres",
                "StashPostgresHummingbird", "StashPostgresHTTP", "StashToolSupport",
                server("Prometheus", "swift-prometheus"),
                server("Metrics", "swift-metrics"),
                server("ArgumentParser", "swift-argument-parser"),
                server("PostgresNIO", "postgres-nio"),
                server("Hummingbird", "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                server("NIOCore", "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The benchmarks. Not a product, so no user's build sees it; as an executable target of
        // the root package it still builds and runs by its name: `swift run -c release stash-bench`.
        .executableTarget(
            name: "stash-bench",
            dependencies: [
                // The modules measured are named directly, not only through the umbrella, so
                // that an incremental release build recompiles the suites when they change.
                "Stash", "StashCore", "StashObjects", "StashObjectsMacros", "StashCache", "StashPreferences", "StashHTTP",
                "StashHTTPAsyncClient", "StashHTTPServer", "StashPostgres", "StashPostgresHTTP", "StashToolSupport",
                server("ArgumentParser", "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                server("PostgresNIO", "postgres-nio"),
                server("Hummingbird", "hummingbird"),
                server("AsyncHTTPClient", "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/StashBench",
            swiftSettings: strictSettings
        ),
        // The parsers of untrusted bytes for libFuzzer (Scripts/fuzz.sh builds it with
        // `-sanitize=fuzzer,address -DSTASH_FUZZ`) and for replaying the committed corpora.
        .executableTarget(
            name: "StashFuzz",
            dependencies: ["StashCore", "StashPreferences", "StashSecure", "StashHTTP", "StashHTTPWireFuzzing"],
            swiftSettings: strictSettings
        ),
        // Child processes for crash and multi-process tests: the tests launch it, write
        // through it and kill it with SIGKILL. Not a product: users never see it.
        .executableTarget(
            name: "StashTestHost",
            // StashObjects named directly, not only through the umbrella: an incremental build
            // otherwise keeps a model's conformance compiled against an older `Model`.
            dependencies: ["Stash", "StashObjects", "StashPostgres", "StashTestSupport", server("PostgresNIO", "postgres-nio")],
            swiftSettings: strictSettings
        ),

        // MARK: Tests

        .target(
            name: "StashTestSupport",
            dependencies: [
                "StashCore", "StashTesting", "StashToolSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/StashTestSupport",
            swiftSettings: strictSettings
        ),
        // The HummingbirdCore server the test origins of StashHTTPTests and StashPostgresTests
        // run on; apart from StashTestSupport, which StashCoreTests links too.
        .target(
            name: "StashHTTPTestSupport",
            dependencies: [
                "StashCore",
                "StashHTTPServer",
                "StashToolSupport",
                server("HummingbirdCore", "hummingbird"),
                server("NIOCore", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/StashHTTPTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StashCoreTests",
            dependencies: ["StashCore", "CStashChecksum", "StashTesting", "StashTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StashSQLTests",
            dependencies: ["StashSQL", "StashTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StashObjectsTests",
            dependencies: ["StashObjects", "StashTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StashObjectsMacrosTests",
            dependencies: [
                // StashObjects named directly, not only through the umbrella: see StashTestHost.
                "Stash", "StashObjects", "StashObjectsMacros", "StashObjectsMacroExpansion", "StashTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StashCacheTests",
            dependencies: ["StashCache", "StashTestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StashDocsTests",
            dependencies: ["StashTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StashPreferencesTests", dependencies: ["StashPreferences", "StashTestSupport"], swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StashSecureTests",
            dependencies: ["StashSecure", "StashTestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StashHTTPTests",
            dependencies: [
                "StashHTTP", "StashHTTPAsyncClient", "StashHTTPServer", "StashHTTPWire", "StashHTTPWireFuzzing", "StashTestSupport",
                "StashHTTPTestSupport", "StashToolSupport",
                server("Prometheus", "swift-prometheus"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("Hummingbird", "hummingbird"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                server("AsyncHTTPClient", "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                server("NIOEmbedded", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOConcurrencyHelpers", "swift-nio"),
            ],
            exclude: ["Cookies/Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "StashToolSupportTests", dependencies: ["StashCore", "StashToolSupport"], swiftSettings: strictSettings),
        .testTarget(name: "StashFuzzTests", dependencies: ["StashTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "StashPostgresTests",
            dependencies: [
                "StashPostgres", "StashPostgresHummingbird", "StashPostgresHTTP", "StashHTTP", "StashTestSupport", "StashHTTPTestSupport",
                server("PostgresNIO", "postgres-nio"),
                server("Hummingbird", "hummingbird"),
                server("HummingbirdCore", "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                server("NIOCore", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "StashCLITests", dependencies: ["StashTestSupport", "StashObjects"], swiftSettings: strictSettings),
        // The umbrella as an app uses it (Observation, app groups).
        .testTarget(name: "StashTests", dependencies: ["Stash", "StashTestSupport"], swiftSettings: strictSettings),
    ]
)
