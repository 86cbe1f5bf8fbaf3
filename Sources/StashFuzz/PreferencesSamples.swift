import Foundation
import StashCore
import StashPreferences

/// Preferences logs written by the real engine, for the seed corpus: values of every type,
/// overwrites and removals (so that compaction has work), and a file with an expired entry.
enum PreferencesSamples {
    static func logFiles() throws -> [Data] {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("stash-fuzz-seeds-\(UUID().uuidString)", isDirectory: true)
        try FileStore.createFolder(folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [Data] = []
        for variant in 0..<3 {
            let url = folder.appendingPathComponent("seed-\(variant).\(Preferences.fileExtension)")
            do {
                let prefs = try Preferences(url: url)
                try prefs.set(42, forKey: "answer")
                try prefs.set("caf\u{E9} ☕️", forKey: "greeting")
                try prefs.set(0.75, forKey: "volume")
                try prefs.set(true, forKey: "enabled")
                try prefs.set(Data([0, 1, 2, 255]), forKey: "blob")
                try prefs.set(["a", "b"], forKey: "list")
                if variant > 0 {
                    for round in 0..<20 { try prefs.set(round, forKey: "counter") }
                    try prefs.removeValue(forKey: "blob")
                }
                if variant > 1 { try prefs.set(Date(timeIntervalSinceReferenceDate: 7e8), forKey: "when") }
                try prefs.flush()
            }
            files.append(try FileStore.read(url))
        }
        return files
    }
}
