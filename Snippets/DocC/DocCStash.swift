import Stash
import StashSQL     // SQL is not re-exported by Stash

let sandbox = try Sandbox(app: "com.example.notes")
let prefs = try Preferences(suite: "com.example.notes", sandbox: sandbox)
let db = try sandbox.databaseQueue("notes")
// snippet.hide
print("db \(db.path.hasSuffix("notes.sqlite")) prefs \(prefs.keys.count)")
