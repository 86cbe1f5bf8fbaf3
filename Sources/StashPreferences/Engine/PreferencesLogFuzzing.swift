import Foundation
import StashCore

/// The fuzzing entry of the preferences log parser: libFuzzer (wired by `Scripts/fuzz.sh`)
/// hands it arbitrary bytes, which must never crash it.
///
/// Each input is read twice: in memory, in every format (the scanner that
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
        if let base = bytes.baseAddress {
            for version in [FormatVersion1.version, FormatVersion2.version, LogFile.version] {
                let start = LogFile.recordsStart(version: version)
                guard bytes.count > start else { continue }
                _ = LogScanner(version: version).scan(base, from: start, to: bytes.count, ignoringZeroTail: true) { _, _ in }
            }
            // Version 3 with the commit its header's first slot claims, trusted or not.
            if bytes.count >= LogFile.headerSize {
                let end = Int(truncatingIfNeeded: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 64, as: UInt64.self)))
                let groupStart = Int(truncatingIfNeeded: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 72, as: UInt64.self)))
                if groupStart >= LogFile.headerSize, groupStart <= end {
                    let commit = LogFile.Commit(
                        counter: 0, end: end, groupStart: groupStart,
                        groupCRC: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 80, as: UInt32.self))
                    )
                    _ = LogScanner(version: LogFile.version).scan(
                        base, from: LogFile.headerSize, to: min(end, bytes.count), commit: commit
                    ) { _, _ in }
                }
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
