public import ServiceLifecycle

/// A swift-service-lifecycle `Service`: ``run()`` is the background expiry, so one
/// `ServiceGroup` runs the cache beside its `PostgresClient` (a `Service` too) and stops both
/// on a graceful shutdown. postgres-nio depends on swift-service-lifecycle already, so the
/// conformance costs a user nothing more to compile.
///
/// ```swift
/// let group = ServiceGroup(services: [client, cache], logger: logger)
/// try await group.run()
/// ```
extension SharedCache: Service {}
