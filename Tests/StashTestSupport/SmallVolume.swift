public import Foundation

/// A real small volume for full-disk tests: a tmpfs of a few megabytes mounted on a fresh
/// folder (root only, Linux), unmounted when this value is released.
///
/// ```swift
/// guard let volume = try SmallVolume.forTest(megabytes: 2) else { try Test.cancel(Comment(rawValue: SmallVolume.unavailable)) }
/// try DiskCache(directory: volume.url.appendingPathComponent("cache"))
/// ```
///
/// Locally, full-disk tests are skipped where no volume can be mounted. In CI (`CI=true`)
/// they must run: `.ci/run` runs as root (it installs packages), which can mount a tmpfs, so
/// there a volume that cannot be mounted fails the test instead of skipping it.
public final class SmallVolume: @unchecked Sendable {
    /// Why full-disk tests are skipped when ``init(megabytes:)`` returns `nil`.
    public static let unavailable = "skipped: a full-disk test mounts a small tmpfs, which needs root on Linux (mount -t tmpfs)"

    /// Whether a missing volume fails the test instead of skipping it: in CI (`CI=true`).
    public static let isRequired = ProcessInfo.processInfo.environment["CI"] == "true"

    /// A volume of `megabytes` for a full-disk test; `nil` (skip the test) when none can be
    /// mounted here.
    ///
    /// - throws: `CocoaError(.fileWriteNoPermission)` naming the reason when none can be
    ///   mounted and ``isRequired``.
    public static func forTest(megabytes: Int) throws -> SmallVolume? {
        if let volume = SmallVolume(megabytes: megabytes) { return volume }
        guard isRequired else { return nil }
        throw CocoaError(.fileWriteNoPermission, userInfo: [
            NSLocalizedDescriptionKey: "CI=true and no small tmpfs could be mounted (run as root with mount allowed): \(unavailable)",
        ])
    }

    private let folder: TemporaryFolder
    /// The root of the volume.
    public let url: URL

    /// Mounts a tmpfs of `megabytes`, or returns `nil` when not root or `mount` fails.
    public init?(megabytes: Int) {
        #if os(Linux)
        guard getuid() == 0 else { return nil }
        folder = TemporaryFolder("volume")
        url = folder.url
        guard SmallVolume.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", url.path]) else { return nil }
        #else
        return nil
        #endif
    }

    deinit {
        _ = SmallVolume.run("/usr/bin/umount", ["-l", url.path])
    }

    /// Free bytes on the volume.
    public var freeBytes: Int {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
