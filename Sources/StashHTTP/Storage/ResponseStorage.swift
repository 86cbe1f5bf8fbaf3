/// Where an ``HTTPCache`` keeps its stored responses: every variant of one URL under one
/// key. The RFC engine only talks to this protocol, so storage can change underneath it.
protocol ResponseStorage: Sendable {
    /// The variants stored for `key`, newest last; empty when none.
    func variants(for key: String) -> [StoredResponse]
    /// Replaces the variants of `key`; an empty array removes the key.
    func setVariants(_ variants: [StoredResponse], for key: String)
    /// Forgets everything.
    func removeAll() async
    /// Writes staged entries to disk now.
    func flush() async throws
    /// Flushes and releases the storage; later writes are dropped.
    func close()
    /// Bytes currently held in memory.
    var memoryUsage: Int { get }
    /// Bytes currently held on disk.
    var diskUsage: Int { get }
}
