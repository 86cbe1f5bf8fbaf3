import Foundation
import StashCore
import StashPreferences

// snippet.hide
// A file as MMKV writes it (unencrypted, no expiry): the bytes in use, a varint, then each
// item as a varint-prefixed key and a varint-prefixed value.
func varint(_ value: Int) -> [UInt8] {
    var rest = UInt64(value), bytes: [UInt8] = []
    repeat {
        bytes.append(UInt8(rest & 0x7F) | (rest > 0x7F ? 0x80 : 0))
        rest >>= 7
    } while rest > 0
    return bytes
}
func item(_ key: String, _ value: [UInt8]) -> [UInt8] {
    varint(key.utf8.count) + Array(key.utf8) + varint(value.count) + value
}
let volumeBytes = withUnsafeBytes(of: (0.35 as Double).bitPattern.littleEndian) { Array($0) }
var items = item("volume", volumeBytes) + item("muted", [1]) + item("launches", varint(7))
items += item("nickname", varint(3) + Array("Ada".utf8))
let content = varint(items.count) + items
let written = withUnsafeBytes(of: UInt32(content.count).littleEndian) { Array($0) } + content
let mmkvFolder = try Sandbox.main.url(for: .documents).appendingPathComponent("mmkv")
try FileManager.default.createDirectory(at: mmkvFolder, withIntermediateDirectories: true)
try Data(written + [UInt8](repeating: 0, count: 64)).write(to: mmkvFolder.appendingPathComponent("mmkv.default"))
// Beside it, the .crc file starts with zlib's CRC-32 of those bytes.
var crc: UInt32 = 0xFFFF_FFFF
for byte in content {
    crc ^= UInt32(byte)
    for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
}
let digest = withUnsafeBytes(of: (~crc).littleEndian) { Array($0) }
try Data(digest + [UInt8](repeating: 0, count: 12)).write(to: mmkvFolder.appendingPathComponent("mmkv.default.crc"))
// snippet.show
extension Preferences.Key where Value == Double {
    static let volume = Preferences.Key("volume", default: 0.8)
}

let prefs = Preferences.standard                          // MMKV.default()

// Once: import the file MMKV kept (Documents/mmkv/mmkv.default, and mmkv.default.crc).
// MMKV stores no types: name the ones you know; the others are guessed.
let mmkvFile = try Sandbox.main.url(for: .documents).appendingPathComponent("mmkv/mmkv.default")
var imported = 0
if FileStore.exists(mmkvFile) {
    imported = try prefs.importMMKV(file: mmkvFile, types: [
        "volume": .double, "muted": .bool, "launches": .integer, "nickname": .string,
    ])
    try FileStore.delete(mmkvFile)
    try FileStore.delete(URL(fileURLWithPath: mmkvFile.path + ".crc"))
}

// encode / decode
let volume = prefs[.volume]                               // mmkv.double(forKey: "volume")
let muted = prefs.bool(forKey: "muted")                   // mmkv.bool(forKey: "muted")
let nickname = prefs.string(forKey: "nickname")           // mmkv.string(forKey: "nickname")
try prefs.set(false, forKey: "muted")                     // mmkv.set(false, forKey: "muted")
let launches = try prefs.increment(forKey: "launches")    // atomic, across processes too
try prefs.removeValue(forKey: "nickname")                 // mmkv.removeValue(forKey: "nickname")
let keys = prefs.keys                                     // mmkv.allKeys()

// enableAutoKeyExpire + set(_:forKey:expireDuration:): an expiry per value.
try prefs.set("abc", forKey: "token", expiry: .after(3600))

// MMKV(mmapID: "settings", mode: .multiProcess): every suite is multi-process.
let settings = try Preferences(suite: "settings")
// A multi-process MMKV in the group folder: a suite in the app group's container.
let shared = try Preferences(suite: "settings", group: "group.com.example")
// snippet.hide
try settings.set(1, forKey: "k"); try shared.set(2, forKey: "k")
print("imported \(imported) volume \(volume) muted \(muted) nickname \(nickname ?? "-")")
print("launches \(launches) keys \(keys) left \(try FileStore.list(mmkvFolder))")
print("token \(prefs.string(forKey: "token") ?? "-") muted \(prefs.bool(forKey: "muted"))")
