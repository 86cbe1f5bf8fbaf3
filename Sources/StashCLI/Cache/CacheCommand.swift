import ArgumentParser
import Foundation
import Logging
import Stash

/// `stash cache stats|list|get|trim|clear --dir DIR`: look into and tidy a disk cache folder.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect, trim and clear a DiskCache folder.",
        discussion: """
            stats, list and get open the folder read-only, so they work while an app writes \
            the cache (they see what it has flushed). trim and clear need the writer lock: \
            they fail with 'locked' while another process writes the folder.
            """,
        subcommands: [CacheStatsCommand.self, CacheListCommand.self, CacheGetCommand.self, CacheTrimCommand.self, CacheClearCommand.self]
    )
}

/// `--dir DIR`: the cache folder.
struct CacheFolderOptions: ParsableArguments {
    @Option(name: .long, help: "The cache folder (the one holding manifest.sqlite).")
    var dir: String

    func open(access: DiskCache.Access, configure: (inout DiskCache.Configuration) -> Void = { _ in }) throws -> DiskCache {
        var configuration = DiskCache.Configuration()
        configuration.access = access
        configuration.logger = Logger(label: "stash.cache", factory: { label in StreamLogHandler.standardError(label: label) })
        configure(&configuration)
        return try DiskCache(directory: URL(fileURLWithPath: dir, isDirectory: true), configuration: configuration)
    }
}

struct CacheStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Counts, bytes, hit ratio, oldest and newest entries.")

    @OptionGroup var folder: CacheFolderOptions

    func run() async throws {
        let cache = try folder.open(access: .readOnly)
        defer { try? cache.close() } // read-only: closing writes nothing
        let statistics = try cache.statistics()
        let entries = try cache.entries()
        let onDisk = try FileStore.allocatedSize(ofFolder: cache.directory)
        print("folder     \(cache.directory.path)")
        print("entries    \(statistics.count) (\(statistics.inlineCount) inline, \(statistics.fileCount) in files)")
        print("bytes      \(statistics.totalSize) in values, \(onDisk) on disk")
        if let ratio = statistics.hitRatio {
            print("hit ratio  \(String(format: "%.1f", ratio * 100))% (\(statistics.hits) hits, \(statistics.misses) misses)")
        } else {
            print("hit ratio  unknown (no reads recorded)")
        }
        if let oldest = entries.min(by: { $0.createdAt < $1.createdAt }) {
            print("oldest     \(CacheFormat.date(oldest.createdAt))  \(oldest.key)")
        }
        if let newest = entries.max(by: { $0.createdAt < $1.createdAt }) {
            print("newest     \(CacheFormat.date(newest.createdAt))  \(newest.key)")
        }
    }
}

struct CacheListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "One line per entry: size, storage, dates, key.")

    @OptionGroup var folder: CacheFolderOptions

    @Flag(name: .long, help: "Least recently used first, instead of by key.")
    var byAccess = false

    func run() async throws {
        let cache = try folder.open(access: .readOnly)
        defer { try? cache.close() } // read-only: closing writes nothing
        var entries = try cache.entries()
        if byAccess { entries.sort { $0.lastAccessedAt < $1.lastAccessedAt } }
        print("size".padding(toLength: 10, withPad: " ", startingAt: 0) + " storage  created               accessed              expires               key")
        for entry in entries {
            let size = String(entry.size)
            let columns = [
                String(repeating: " ", count: max(0, 10 - size.count)) + size,
                entry.storage.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0),
                CacheFormat.date(entry.createdAt), CacheFormat.date(entry.lastAccessedAt),
                entry.expiresAt.map(CacheFormat.date) ?? "never".padding(toLength: 20, withPad: " ", startingAt: 0),
                entry.key,
            ]
            print(columns.joined(separator: "  "))
        }
    }
}

struct CacheGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Write an entry's value to standard output (or its details with --info).")

    @OptionGroup var folder: CacheFolderOptions

    @Argument(help: "The key.")
    var key: String

    @Flag(name: .long, help: "Print the entry's size, dates, file and metadata instead of its value.")
    var info = false

    func run() async throws {
        let cache = try folder.open(access: .readOnly)
        defer { try? cache.close() } // read-only: closing writes nothing
        guard let entry = cache.entry(forKey: key) else {
            throw StashError(.notFound, "no entry (or an expired one)", path: cache.directory.path, key: key)
        }
        guard info else {
            FileHandle.standardOutput.write(entry.data)
            return
        }
        print("key        \(entry.info.key)")
        print("size       \(entry.info.size)")
        print("storage    \(entry.info.storage.rawValue)\(cache.fileURL(for: key).map { " " + $0.path } ?? "")")
        print("created    \(CacheFormat.date(entry.info.createdAt))")
        print("accessed   \(CacheFormat.date(entry.info.lastAccessedAt))")
        print("expires    \(entry.info.expiresAt.map(CacheFormat.date) ?? "never")")
        if let metadata = entry.info.metadata {
            print("metadata   \(String(data: metadata, encoding: .utf8) ?? "\(metadata.count) bytes")")
        }
    }
}

struct CacheTrimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Remove expired entries, then least recently used ones until the limits hold.",
        discussion: "A limit that is exceeded is trimmed to half of it, as the cache itself does."
    )

    @OptionGroup var folder: CacheFolderOptions

    @Option(name: .long, help: "The total size limit in bytes (default: 256 MB).")
    var sizeLimit: Int?

    @Option(name: .long, help: "The entry count limit.")
    var countLimit: Int?

    @Option(name: .long, help: "Remove entries written more than this many seconds ago.")
    var ageLimit: Double?

    func run() async throws {
        let before = try folder.open(access: .readOnly).count
        let cache = try folder.open(access: .readWrite) { configuration in
            if let sizeLimit { configuration.sizeLimit = sizeLimit }
            configuration.countLimit = countLimit
            configuration.ageLimit = ageLimit
        }
        defer { try? cache.close() }
        try await cache.trim()
        let (left, bytes) = (cache.count, cache.totalSize)
        try cache.close()
        print("removed \(before - left) entries; \(left) entries, \(bytes) bytes left")
    }
}

struct CacheClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every entry.")

    @OptionGroup var folder: CacheFolderOptions

    func run() async throws {
        let before = try folder.open(access: .readOnly).count
        let cache = try folder.open(access: .readWrite)
        defer { try? cache.close() }
        try await cache.removeAll()
        let left = cache.count
        try cache.close()
        print("removed \(before) entries; \(left) left")
    }
}

enum CacheFormat {
    static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
