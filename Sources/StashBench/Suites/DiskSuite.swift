import Foundation

enum DiskSuite {
    @Sendable static func run(_ context: BenchContext) async throws {
        context.reporter.note("Disk suite: not built yet")
    }
}
