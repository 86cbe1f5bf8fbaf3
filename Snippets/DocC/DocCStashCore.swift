import Foundation
import StashCore

let sandbox = try Sandbox(app: "com.example.notes")
let archive = ArchiveFile<[String]>(url: try sandbox.url(for: .documents).appendingPathComponent("titles.plist"))
try archive.save(["Hello"])
let titles = try archive.load()
// snippet.hide
print("titles \(titles)")
