import Foundation
import StashCache
import StashCore

/// The on-disk storage of an ``HTTPCache``: StashCache's ``StashCache/HybridCache``, with
/// the decoded variants of each URL in its memory side (bounded by the memory capacity)
/// and their binary encoding in its disk side (bounded by the disk capacity).
///
/// Limits, trimming and crash safety are the DiskCache's: nothing is torn by a crash, and
/// a crash of the process loses at most the writes of the last flush window (see
/// ``flushDelay``). Thread-safe.
final class HybridResponseStorage: ResponseStorage {
    let cache: HybridCache<[StoredResponse]>

    /// How long writes stay staged before DiskCache writes them out.
    static let flushDelay: TimeInterval = 0.05

    init(memoryCapacity: Int, diskCapacity: Int, directory: URL) throws {
        let memory = MemoryCache<String, [StoredResponse]>(configuration: .init(
            costLimit: max(0, memoryCapacity),
            cost: { key, variants in variants.reduce(key.utf8.count) { $0 + $1.cost } }
        ))
        var configuration = DiskCache.Configuration()
        configuration.limits = DiskCache.Limits(maxBytes: max(0, diskCapacity))
        configuration.flushDelay = Self.flushDelay
        let disk = try DiskCache(directory: directory, configuration: configuration)
        cache = HybridCache(memory: memory, disk: disk, codec: VariantsCodec())
    }

    func variants(for key: String) -> [StoredResponse] { cache.value(forKey: key) ?? [] }

    func setVariants(_ variants: [StoredResponse], for key: String) {
        guard !variants.isEmpty, (try? cache.set(variants, forKey: key)) != nil else {
            cache.removeValue(forKey: key)
            return
        }
    }

    func removeAll() async { try? await cache.removeAll() }

    func flush() async throws { try await cache.disk.flush() }

    func close() { try? cache.disk.close() } // DiskCache.close() throws since issue 9; HTTPCache.close() does not yet

    var memoryUsage: Int { cache.memory.totalCost }
    var diskUsage: Int { (try? cache.disk.statistics().totalSize) ?? 0 }
}

/// The variants of one URL as bytes, in ``StoredResponseCoding``'s format.
struct VariantsCodec: CacheCodec {
    func encode(_ value: [StoredResponse]) throws -> Data { StoredResponseCoding.encode(key: "", variants: value) }

    func decode(_ data: Data) throws -> [StoredResponse] {
        guard let decoded = StoredResponseCoding.decode(data) else {
            throw StashError(.corruptFile, "not a stored HTTP response")
        }
        return decoded.variants
    }
}
