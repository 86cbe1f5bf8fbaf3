// snippet.hide
import Foundation
import StashCore
let sandbox = try Sandbox(app: "com.example.notes")
let url = try sandbox.url(for: .documents).appendingPathComponent("titles.plist")
try Data("not an archive".utf8).write(to: url)
let archive = ArchiveFile<[String]>(url: url)
// snippet.show
do {
    _ = try archive.load()
} catch StashError.Code.corruptFile {
    // the file exists but is not a whole archive; it was left untouched
    // snippet.hide
    print("corrupt \(try String(contentsOf: url, encoding: .utf8))")
    // snippet.show
}
