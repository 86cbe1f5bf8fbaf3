package import Logging
package import ServiceLifecycle

/// Runs a server until the calling task is cancelled, then shuts it down gracefully: it stops
/// accepting, lets requests in flight finish and closes idle connections, instead of
/// cancelling its connection tasks (which HummingbirdCore logs as an error).
package enum GracefulShutdown {
    /// Runs `service` until the calling task is cancelled or the service ends.
    ///
    /// ```swift
    /// let task = Task { try await GracefulShutdown.run(server, logger: logger) }
    /// task.cancel() // the server finishes what it was doing, then `run` returns
    /// ```
    package static func run(_ service: any Service, logger: Logger) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [service], logger: logger))
        // Not a child task: cancelling the caller must reach the server as a graceful
        // shutdown, never as a cancellation of its connection tasks.
        let running = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await running.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }
}
