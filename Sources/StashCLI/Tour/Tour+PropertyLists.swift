import Foundation
import Stash

extension Tour {
    /// The tour's archived value, in its first and second shapes.
    private struct ProfileV1: Codable, Sendable {
        var name: String
        var nickname: String
    }

    private struct ProfileV2: Codable, Sendable {
        var name: String
        var theme: String
    }

    @Sendable static func propertyListsAndArchives(_ tour: Tour) async throws {
        let preferences = try tour.sandbox.url(for: .preferences)
        let settings: PropertyList = [
            "name": "Ada", "volume": 0.8, "launches": 42, "beta": true,
            "installed": .date(Date(timeIntervalSince1970: 1_700_000_000)), "recent": ["notes", "todo"],
        ]
        for format in PropertyListFormat.allCases {
            let url = preferences.appendingPathComponent("settings-\(format.rawValue).\(format.fileExtension)")
            try settings.write(to: url, format: format)
            let back = try PropertyList(contentsOf: url)
            let note = format == .json ? "read back with the date as a string" : "read back equal: \(back == settings)"
            tour.say("Wrote settings as \(format.rawValue) (\(try FileStore.size(of: url)) bytes); \(note).")
        }
        tour.say("(JSON keeps dates as ISO 8601 strings, so it reads back with a string where the date was.)")

        do {
            _ = try PropertyList.dictionary(["ratio": .real(.nan)]).data(format: .xml)
        } catch {
            tour.say("A NaN is refused with a typed error naming its place: \(error)")
        }

        let url = tour.sandbox.documents.appendingPathComponent("profile.plist")
        try ArchiveFile<ProfileV1>(url: url, version: 1).save(ProfileV1(name: "Ada", nickname: "A"))
        tour.say("ArchiveFile<ProfileV1> saved profile.plist (version 1, binary plist).")
        let archive = ArchiveFile<ProfileV2>(url: url, version: 2)
        archive.migration(from: 1) { profile in
            profile["nickname"] = nil
            profile["theme"] = "system"
        }
        let profile = try archive.load()
        tour.say("ArchiveFile<ProfileV2> loaded it through the 1 -> 2 migration: name=\(profile.name), theme=\(profile.theme).")
        try archive.save(profile)
        tour.say("Saved again, the file is now version \(try PropertyList(contentsOf: url)["version"]?.integerValue ?? 0).")

        try FileStore.write(Data("bplist00 torn".utf8), to: tour.sandbox.documents.appendingPathComponent("torn.plist"))
        do {
            _ = try ArchiveFile<ProfileV2>(url: tour.sandbox.documents.appendingPathComponent("torn.plist")).load()
        } catch {
            tour.say("A torn archive gives a typed error and is left as it is: \(error)")
        }
        tour.say("On disk:")
        tour.showFiles(under: preferences)
        tour.showFiles(under: tour.sandbox.documents)
    }
}
