import Foundation
import StashCore
import StashTestSupport
import Testing

/// `stash defaults import SUITE FILE --from mmkv`, run as a user would.
struct DefaultsImportTests {
    /// A small MMKV file (no .crc beside it): a 4-byte count of bytes in use, a varint, then
    /// varint-prefixed keys and values as MMKV's encoders write them.
    func writeMMKV(to url: URL) throws {
        var items = BinaryWriter()
        items.writeCounted("volume")
        items.writeCounted([UInt8](withUnsafeBytes(of: (0.25 as Double).bitPattern.littleEndian) { Array($0) }))
        items.writeCounted("name")
        var name = BinaryWriter()
        name.writeCounted("Ada")
        items.writeCounted(name.bytes)
        items.writeCounted("launches")
        items.writeCounted([UInt8(7)])
        var file = BinaryWriter()
        var content = BinaryWriter()
        content.writeVarInt(UInt64(items.count))
        content.write(contentsOf: items.bytes)
        file.write(UInt32(content.count))
        file.write(contentsOf: content.bytes)
        try FileStore.write(file.data, to: url)
    }

    @Test func importFromMMKVThenRead() throws {
        let folder = TemporaryFolder("cli-mmkv")
        let root = folder.url.appendingPathComponent("sandbox").path
        let mmkv = folder.file("settings")
        try writeMMKV(to: mmkv)

        let imported = try StashExecutable.run(["defaults", "import", "prefs", mmkv.path, "--from", "mmkv", "--type", "volume=double", "--root", root])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("imported 3 keys into prefs"))

        let read = try StashExecutable.run(["defaults", "read", "prefs", "name", "--root", root])
        #expect(read.output.contains("Ada"), "\(read.output) \(read.errors)")
        let volume = try StashExecutable.run(["defaults", "read", "prefs", "volume", "--root", root])
        #expect(volume.output.contains("0.25"))

        let wrongType = try StashExecutable.run(["defaults", "import", "prefs", mmkv.path, "--from", "mmkv", "--type", "name=real", "--root", root])
        #expect(wrongType.status != 0)
        let unknown = try StashExecutable.run(["defaults", "import", "prefs", mmkv.path, "--from", "leveldb", "--root", root])
        #expect(unknown.status != 0)
    }
}
