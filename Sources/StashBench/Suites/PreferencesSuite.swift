import Foundation

enum PreferencesSuite {
    @Sendable static func run(_ context: BenchContext) async throws {
        context.reporter.note("Preferences suite: not built yet")
    }
}
