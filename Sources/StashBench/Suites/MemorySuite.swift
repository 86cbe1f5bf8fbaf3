import Foundation

enum MemorySuite {
    @Sendable static func run(_ context: BenchContext) async throws {
        context.reporter.note("Memory suite: not built yet")
    }
}
