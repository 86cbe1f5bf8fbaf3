import Foundation

enum HTTPSuite {
    @Sendable static func run(_ context: BenchContext) async throws {
        context.reporter.note("HTTP suite: not built yet")
    }
}
