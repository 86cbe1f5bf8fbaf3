import Foundation
import StashCore

let sandbox = try Sandbox(app: "com.example.notes")        // bad identifiers throw .invalidName
let documents = try sandbox.url(for: .documents)            // created on first use, mode 0700
let shared = try sandbox.groupContainer("group.com.example") // the app-group idea

// Files: atomic, durable writes; a failed write never replaces the old content.
let url = documents.appendingPathComponent("note.txt")
try FileStore.write(Data("hello".utf8), to: url)
let size = try FileStore.size(of: url)
try FileLock(url: documents.appendingPathComponent(".lock")).withLock { /* one process at a time */ }

// Property lists: XML and binary compatible with Apple's, and JSON.
var settings: PropertyList = ["volume": 0.8, "name": "Ada", "recent": ["a", "b"]]
let preferences = try sandbox.url(for: .preferences)       // url(for:) creates the folder
try settings.write(to: preferences.appendingPathComponent("app.plist"), format: .binary)
let back = try PropertyList(contentsOf: preferences.appendingPathComponent("app.plist"))

// Archives: a Codable value in one file, versioned, migrated on load.
struct Profile: Codable { var name: String; var theme: String }
let archive = ArchiveFile<Profile>(url: documents.appendingPathComponent("profile.plist"), version: 2)
archive.migration(from: 1) { profile in
    profile["nickname"] = nil        // removed in version 2
    profile["theme"] = "system"      // added in version 2
}
try archive.save(Profile(name: "Ada", theme: "dark"))
let profile = try archive.load()
// snippet.hide
print("size \(size)")
print("settings \(back == settings)")
print("profile \(profile.name) \(profile.theme)")
print("shared \(shared.lastPathComponent)")
let mode = try FileManager.default.attributesOfItem(atPath: documents.path)[.posixPermissions] as? Int ?? 0
print("documents mode \(String(mode, radix: 8))")
