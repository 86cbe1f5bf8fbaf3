import Foundation
import StashCore

/// The fuzzing entry of the preferences log parser: libFuzzer (wired by `Scripts/fuzz.sh`)
/// hands it arbitrary bytes, which must never crash it.
///
/// Each input is read twice: in memory, record by record in both formats (the scanner that
/// open and salvage use), then as a whole file through the real open path (header checks,
/// salvage, migration, compaction), followed by a read of every key and one write.
///
/// ```swift
/// bytes.withUnsafeBytes { PreferencesLogFuzzing.run($0) }
/// ```
package enum PreferencesLogFuzzing {
    /// A folder of this process's own for the temporary log files.
    private static let folder: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("stash-fuzz-preferences-\(getpid())", isDirectory: true)
        try? FileStore.createFolder(url)
        return url
    }()

    /// Parses `bytes` as a preferences log. Errors are expected; a crash is a bug.
    package static func run(_ bytes: UnsafeRawBufferPointer) {
        if let base = bytes.baseAddress, bytes.count > LogFile.headerSize {
            for version in [FormatVersion1.version, LogFile.version] {
                _ = LogScanner(version: version).scan(base, from: LogFile.headerSize, to: bytes.count, ignoringZeroTail: true) { _, _ in }
            }
        }
        let url = folder.appendingPathComponent("input.stashprefs")
        guard (try? FileStore.write(Data(bytes), to: url, durability: .processSafe)) != nil else { return }
        defer {
            if let names = try? FileStore.list(folder) {
                for name in names { try? FileStore.delete(folder.appendingPathComponent(name)) }
            }
        }
        guard let prefs = try? Preferences(url: url) else { return }
        for key in prefs.keys { _ = prefs.object(forKey: key) }
        _ = prefs.recoveryReport?.description
        try? prefs.set(1, forKey: "fuzz")
        prefs.close()
    }
}
