public import Foundation
public import StashCore

extension BoundedQueue where Element: Codable {
    /// One saved element and when it was appended (seconds since 2001).
    struct SavedItem: Codable {
        var element: Element
        var appended: Double
    }

    /// Writes every live element, oldest first, to `url` as JSON, atomically.
    ///
    /// ```swift
    /// try recentSearches.save(to: url)
    /// ```
    ///
    /// After a crash the file holds the previous save or this one, never a mix. Elements are
    /// encoded outside the queue's lock.
    ///
    /// - throws: ``/StashCore/StashError`` with `unsupportedValue` when an element cannot be encoded,
    ///   `diskFull`, `permissionDenied` or `io` when the write fails (the old file stays).
    public func save(to url: URL, durability: FileStore.Durability = .powerSafe) throws {
        let items = live { $0.elements }
        let saved = items.map { SavedItem(element: $0.element, appended: $0.appended) }
        try CollectionFile.write(saved, format: "stash.queue", to: url, durability: durability)
    }

    /// Creates a queue from a file written by ``save(to:durability:)``, minus the elements
    /// that expired since. When the file holds more than `countLimit`, the oldest are left out.
    ///
    /// ```swift
    /// let searches = (try? BoundedQueue<String>(contentsOf: url, countLimit: 20)) ?? BoundedQueue(countLimit: 20)
    /// ```
    ///
    /// - throws: ``/StashCore/StashError`` with `notFound` when there is no file, `corruptFile` when it
    ///   cannot be decoded, `unsupportedVersion` when a newer build wrote it. The file is
    ///   never modified.
    public convenience init(
        contentsOf url: URL, countLimit: Int, ageLimit: TimeInterval? = nil, clock: any StashClock = SystemClock()
    ) throws {
        let saved = try CollectionFile.read(SavedItem.self, format: "stash.queue", from: url)
        self.init(countLimit: countLimit, ageLimit: ageLimit, clock: clock)
        let now = now
        state.withLock { buffer in
            for item in saved {
                _ = buffer.append(Item(element: item.element, appended: item.appended))
            }
            removeExpired(from: &buffer, now: now)
        }
    }
}
