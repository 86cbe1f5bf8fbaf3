// snippet.hide
import Foundation
import Stash

struct Profile: Codable { var name: String }
let sandbox = try Sandbox(app: "com.example.notes")
let archive = ArchiveFile<Profile>(url: try sandbox.url(for: .documents).appendingPathComponent("profile.plist"))
try archive.save(Profile(name: "Ada"))
// snippet.show
do {
    let profile = try archive.load()
    print(profile.name)
} catch StashError.Code.corruptFile {
    // the file exists but cannot be decoded; it was left untouched
} catch let error as StashError where error.code == .diskFull {
    // nothing acknowledged before was lost
}
