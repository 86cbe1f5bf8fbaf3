import CStashChecksum
import Foundation
import StashTestSupport
import Testing
@testable import StashCore

/// The slicing-by-8 CRC-32 against the published check value and against the plain
/// bit-at-a-time definition, for every length across the 8-byte steps and every split of
/// an update in two (every record and header checksum of the log goes through it).
struct CRC32Tests {
    /// The CRC-32 definition, a bit at a time: the reference the fast one must equal.
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func checkValue() {
        let bytes = Array("123456789".utf8)
        #expect(bytes.withUnsafeBytes { CRC32.checksum($0.baseAddress!, count: $0.count) } == 0xCBF4_3926)
        #expect(CRC32().value == 0)
    }

    @Test func equalsTheBitwiseDefinitionAtEveryLengthAndSplit() {
        let seed = SeededGenerator.freshSeed(for: "equalsTheBitwiseDefinitionAtEveryLengthAndSplit")
        var random = SeededGenerator(seed: seed)
        let bytes = (0..<67).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes.withUnsafeBytes { buffer in
            for count in 0...buffer.count {
                let expected = CRC32Tests.reference(Array(bytes[0..<count]))
                #expect(CRC32.checksum(buffer.baseAddress!, count: count) == expected, "length \(count), seed \(seed)")
                for split in 0...count {
                    var crc = CRC32()
                    crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<split]))
                    crc.update(UnsafeRawBufferPointer(rebasing: buffer[split..<count]))
                    #expect(crc.value == expected, "length \(count), split \(split), seed \(seed)")
                }
            }
        }
    }
}

/// The hardware fold (runs of 64 bytes or more) against the bitwise definition, at random
/// lengths and alignments, and whether it runs at all on a processor that has it.
struct CRC32FoldTests {
    @Test func foldedRunsEqualTheBitwiseDefinition() {
        let seed = SeededGenerator.freshSeed(for: "foldedRunsEqualTheBitwiseDefinition")
        var random = SeededGenerator(seed: seed)
        let bytes = (0..<9000).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes.withUnsafeBytes { buffer in
            for round in 0..<150 {
                // Lengths across the fold's thresholds (64, every 16, every 64) and long runs.
                let count = round < 80 ? 60 + round : Int.random(in: 0..<8000, using: &random)
                let offset = Int.random(in: 0..<16, using: &random)
                let expected = CRC32Tests.reference(Array(bytes[offset..<(offset + count)]))
                #expect(CRC32.checksum(buffer.baseAddress! + offset, count: count) == expected,
                        "length \(count), offset \(offset), seed \(seed)")
            }
        }
    }

    /// On x86-64 with PCLMULQDQ (every x86-64 processor since 2010), the fold runs: the test
    /// above then checks it and not only the tables.
    @Test func theFoldRunsWhereTheProcessorHasCarrylessMultiply() throws {
        #if arch(x86_64) && os(Linux)
        let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let hasIt = flags.contains(" pclmulqdq") && flags.contains(" sse4_1")
        #expect((stash_crc32_fold_available() != 0) == hasIt)
        #endif
    }
}
