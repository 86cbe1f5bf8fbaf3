import Foundation
@testable import StashCore
import StashTestSupport
import Testing

struct BinaryCodecTests {
    @Test func fieldsRoundTripInBothByteOrders() throws {
        var writer = BinaryWriter()
        writer.write(UInt16(0xBEEF), .bigEndian)
        writer.write(Int64(-2), .littleEndian)
        writer.writeVarInt(0)
        writer.writeVarInt(127)
        writer.writeVarInt(128)
        writer.writeVarInt(.max)
        writer.writeCounted("café ☕️")
        writer.writeCounted([UInt8]([1, 2, 3]))
        #expect(Array(writer.bytes.prefix(2)) == [0xBE, 0xEF])

        try BinaryReader.read(writer.data) { (reader) throws in
            #expect(try reader.read(UInt16.self, .bigEndian) == 0xBEEF)
            #expect(try reader.read(Int64.self) == -2)
            #expect(try reader.readVarInt() == 0)
            #expect(try reader.readVarInt() == 127)
            #expect(try reader.readVarInt() == 128)
            #expect(try reader.readVarInt() == .max)
            #expect(try reader.readString(count: reader.readCount()) == "café ☕️")
            #expect(try reader.readArray(count: reader.readCount()) == [1, 2, 3])
            #expect(reader.isAtEnd)
        }
    }

    @Test func patchOverwritesALengthWrittenEarlier() throws {
        var writer = BinaryWriter()
        writer.write(UInt32(0))
        writer.write("abc")
        writer.patch(UInt32(3), at: 0)
        try BinaryReader.read(writer.data) { (reader) throws in
            #expect(try reader.read(UInt32.self) == 3)
        }
    }

    @Test func shortReadsThrowCorruptFileInsteadOfTrapping() {
        let bytes: [UInt8] = [0x01, 0x02, 0x03]
        #expect(throws: StashError.self) {
            try BinaryReader.read(bytes) { reader in _ = try reader.read(UInt32.self) }
        }
        #expect(throws: StashError.self) {
            try BinaryReader.read(bytes) { reader in _ = try reader.readBytes(count: 4) }
        }
        #expect(throws: StashError.self) {
            try BinaryReader.read(bytes) { reader in _ = try reader.readBytes(count: -1) }
        }
        #expect(throws: StashError.self) {
            try BinaryReader.read(bytes) { reader in try reader.seek(to: 4) }
        }
        do {
            try BinaryReader.read(bytes) { reader in _ = try reader.read(UInt64.self) }
            Issue.record("a short read returned")
        } catch let error as StashError {
            #expect(error.code == .corruptFile)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func hostileLengthsAndVarIntsAreRefused() {
        // A count larger than what is left never reaches an allocation.
        var writer = BinaryWriter()
        writer.writeVarInt(1 << 40)
        writer.write("x")
        #expect(throws: StashError.self) {
            try BinaryReader.read(writer.data) { reader in _ = try reader.readCount() }
        }
        // Eleven continuation bytes, and a tenth byte that overflows 64 bits.
        let endless = [UInt8](repeating: 0xFF, count: 11)
        #expect(throws: StashError.self) {
            try BinaryReader.read(endless) { reader in _ = try reader.readVarInt() }
        }
        let overflow = [UInt8](repeating: 0xFF, count: 9) + [0x02]
        #expect(throws: StashError.self) {
            try BinaryReader.read(overflow) { reader in _ = try reader.readVarInt() }
        }
        // A truncated varint.
        #expect(throws: StashError.self) {
            try BinaryReader.read([UInt8]([0x80])) { reader in _ = try reader.readVarInt() }
        }
    }

    @Test func invalidUTF8IsRefused() {
        let bytes: [UInt8] = [0x61, 0xC3, 0x28]
        #expect(throws: StashError.self) {
            try BinaryReader.read(bytes) { reader in _ = try reader.readString(count: 3) }
        }
    }

    @Test func randomBytesNeverTrap() throws {
        let seed = SeededGenerator.freshSeed(for: "BinaryCodecTests.randomBytesNeverTrap")
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...24, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? BinaryReader.read(bytes) { reader in
                while !reader.isAtEnd {
                    switch UInt8.random(in: 0...4, using: &generator) {
                    case 0: _ = try reader.readVarInt()
                    case 1: _ = try reader.read(UInt32.self, .bigEndian)
                    case 2: _ = try reader.readString(count: reader.readCount())
                    case 3: try reader.skip(Int.random(in: 0...3, using: &generator))
                    default: _ = try reader.readByte()
                    }
                }
            }
        }
    }
}
