import Foundation
import StashCore
import StashHTTP
import StashHTTPWireFuzzing
import StashPreferences
import StashSecure

/// One parser of untrusted bytes that `stash-fuzz` exercises. `run` must return for every
/// input: throwing (and swallowing) a typed error is fine, a crash, a hang or a sanitizer
/// report is a bug.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
    /// Valid inputs the committed seed corpus starts from (`stash-fuzz seed`).
    let seeds: @Sendable () throws -> [Data]
    /// Whether the target exercises a peer's parser (Foundation's) for comparison, not
    /// Stash's: its crashes are findings about the peer, kept in `Fuzz/PeerFindings/`, and
    /// `Scripts/fuzz.sh` runs it only when named.
    var isPeer = false

    /// Every target, by name.
    static let all: [FuzzTarget] = [
        FuzzTarget(
            name: "plist-xml", summary: "XML property lists (Stash's reader)",
            run: { bytes in _ = try? PropertyList(data: Data(bytes), format: .xml) },
            seeds: { try PropertyListSamples.all.map { try $0.data(format: .xml) } }
        ),
        FuzzTarget(
            name: "plist-binary", summary: "binary property lists, bplist00 (Stash's reader)",
            run: { bytes in _ = try? PropertyList(data: Data(bytes), format: .binary) },
            seeds: { try PropertyListSamples.all.map { try $0.data(format: .binary) } }
        ),
        FuzzTarget(
            name: "plist-json", summary: "JSON property lists (Stash's reader)",
            run: { bytes in _ = try? PropertyList(data: Data(bytes), format: .json) },
            seeds: { try PropertyListSamples.all.map { try $0.data(format: .json) } }
        ),
        FuzzTarget(
            name: "plist-foundation", summary: "XML and binary property lists (Foundation's PropertyListSerialization), for comparison",
            run: { bytes in _ = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) },
            seeds: { try PropertyListSamples.all.flatMap { [try $0.data(format: .xml), try $0.data(format: .binary)] } },
            isPeer: true
        ),
        FuzzTarget(
            name: "archive", summary: "Archive files: envelope, checksum, migration and decoding",
            run: { bytes in ArchiveFuzzing.run(bytes) },
            seeds: { try ArchiveFuzzing.seeds() }
        ),
        FuzzTarget(
            name: "preferences-log", summary: "preferences logs: header, records, salvage, migration of format 1",
            run: { bytes in PreferencesLogFuzzing.run(bytes) },
            seeds: { try PreferencesSamples.logFiles() }
        ),
        FuzzTarget(
            name: "vault-file", summary: "Linux vault files: header, digest, key check, MAC, records",
            run: { bytes in VaultFileFuzzing.run(bytes) },
            seeds: {
                [
                    try VaultFileFuzzing.seed(entries: [:]),
                    try VaultFileFuzzing.seed(entries: ["token": Data("s3cr3t".utf8), "caf\u{E9}": Data([0, 1, 2])]),
                ]
            }
        ),
        FuzzTarget(
            name: "http-stored-response", summary: "the HTTP cache's stored response records (decoded, re-encoded, decoded, served as hits)",
            run: { bytes in
                // -2: the bytes decoded to a record that did not encode and decode to itself.
                // A finding like a crash: trap, so that libFuzzer keeps the input and a replay fails.
                if HTTPFuzzing.storedResponse(bytes) == -2 {
                    fatalError("a stored response record did not survive encoding and decoding again")
                }
            },
            seeds: { HTTPFuzzing.storedResponseSeeds() }
        ),
        FuzzTarget(
            name: "cache-control", summary: "Cache-Control field lines and their arguments",
            run: { bytes in _ = HTTPFuzzing.cacheControl(bytes) },
            seeds: { ["max-age=60, s-maxage=30, no-cache=\"Set-Cookie, X-A\"", "private, must-revalidate, stale-while-revalidate=5", "no-store"].map { Data($0.utf8) } }
        ),
        FuzzTarget(
            name: "http-date", summary: "HTTP dates: IMF-fixdate, RFC 850, asctime",
            run: { bytes in _ = HTTPFuzzing.httpDate(bytes) },
            seeds: { ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"].map { Data($0.utf8) } }
        ),
        FuzzTarget(
            name: "vary", summary: "Vary field values and the request fields they select",
            run: { bytes in _ = HTTPFuzzing.vary(bytes) },
            seeds: { ["Accept-Encoding, Accept-Language", "*", "accept-language,  X-Custom"].map { Data($0.utf8) } }
        ),
        FuzzTarget(
            name: "entity-tags", summary: "entity-tag lists (If-None-Match, If-Match)",
            run: { bytes in _ = HTTPFuzzing.entityTags(bytes) },
            seeds: { ["\"abc\", W/\"def\"", "*", "W/\"\", \"x\""].map { Data($0.utf8) } }
        ),
        FuzzTarget(
            name: "http-request-head",
            summary: "the proxy's strict request-head reader against NIO's HTTP/1 decoder (differential: a head read differently traps)",
            run: { bytes in RequestHeadFuzzing.run(bytes) },
            seeds: { RequestHeadFuzzing.seeds.map { Data($0.utf8) } }
        ),
        FuzzTarget(
            name: "http-origin-response",
            summary: "an origin's response bytes through NIO's decoder, the cache's storage rules, and the proxy's encoder (a split answer traps)",
            run: { bytes in OriginResponseFuzzing.run(bytes) },
            seeds: { OriginResponseFuzzing.seeds.map { Data($0.utf8) } }
        ),
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}
