import Foundation
import StashCore

// snippet.hide
// What version 1 of the app saved: notes without `pinned`.
struct NoteVersion1: Codable { var title: String; var body: String; var modified: Date }
let folder = try Sandbox.main.url(for: .documents)
try ArchiveFile<[NoteVersion1]>(url: folder.appendingPathComponent("notes.plist"), version: 1)
    .save([NoteVersion1(title: "Groceries", body: "eggs", modified: Date())])
// And a file NSKeyedArchiver wrote: a binary plist of UID references.
let header = Array("bplist00".utf8), uid: [UInt8] = [0x80, 0x01], offsets: [UInt8] = [0x08]
let trailer: [UInt8] = [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 10]
try Data(header + uid + offsets + trailer).write(to: folder.appendingPathComponent("notes.archive"))
// snippet.show
// The model: a Codable struct instead of an NSObject subclass with NSSecureCoding.
struct Note: Codable, Sendable {
    var title: String
    var body: String
    var pinned: Bool              // new in version 2
    var modified: Date
}

let documents = try Sandbox.main.url(for: .documents)
let archive = ArchiveFile<[Note]>(url: documents.appendingPathComponent("notes.plist"), version: 2)

// What init(coder:) did for files of an older version: one step per version, on the tree.
archive.migration(from: 1) { notes in
    notes = .array((notes.arrayValue ?? []).map { note in
        var note = note
        note["pinned"] = false
        return note
    })
}

// NSKeyedUnarchiver.unarchivedObject(ofClasses:from:): reads, upgrades, decodes.
var notes = try archive.loadIfPresent() ?? []

// archivedData(withRootObject:requiringSecureCoding:) and write(to:options: .atomic):
// one atomic, fsynced replacement of the file.
notes.append(Note(title: "Ideas", body: "…", pinned: true, modified: Date()))
try archive.save(notes)

// A file NSKeyedArchiver wrote is refused, and left as it is.
let keyedArchive = documents.appendingPathComponent("notes.archive")
do {
    _ = try PropertyList(contentsOf: keyedArchive)
} catch StashError.Code.unsupportedValue {
    // UID references ($objects, $top): unarchive it once with NSKeyedUnarchiver
}
// snippet.hide
let reloaded = try archive.load()
print("notes \(reloaded.map(\.title)) pinned \(reloaded.map(\.pinned))")
do {
    _ = try PropertyList(contentsOf: keyedArchive)
} catch let error as StashError {
    print("keyed archive refused \(error.code == .unsupportedValue) kept \(FileStore.exists(keyedArchive))")
}
