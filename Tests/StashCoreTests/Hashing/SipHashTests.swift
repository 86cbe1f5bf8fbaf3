import Foundation
@testable import StashCore
import Testing

/// SipHash against the reference's published values (SipHash-2-4, key 00…0f, message
/// 00…(n-1)), at lengths either side of the 8-byte word; SipHash-1-3 is the same code with
/// other round counts.
struct SipHashTests {
    static let key: (UInt64, UInt64) = (0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908)

    @Test(arguments: [
        (0, 0x726F_DB47_DD0E_0E31), (1, 0x74F8_39C5_93DC_67FD), (2, 0x0D6C_8009_D9A9_4F5A),
        (7, 0xAB02_00F5_8B01_D137), (8, 0x93F5_F579_9A93_2462), (15, 0xA129_CA61_49BE_45E5),
        (16, 0x3F2A_CC7F_57C2_9BDB), (63, 0x958A_324C_EB06_4572),
    ] as [(Int, UInt64)])
    func sipHash24MatchesTheReference(length: Int, expected: UInt64) {
        let message = (0..<length).map { UInt8($0) }
        let hash = message.withUnsafeBytes { SipHash(key: Self.key, rounds: (2, 4)).hash($0) }
        #expect(hash == expected)
    }

    /// SipHash-1-3 gives its own values, the same for the same key and bytes, and another
    /// key gives others.
    @Test func sipHash13DependsOnTheKeyAndEveryByte() {
        let message = Array("https://example.com/api/item/1.json".utf8)
        let hash = message.withUnsafeBufferPointer { SipHash(key: Self.key).hash($0) }
        #expect(hash == message.withUnsafeBufferPointer { SipHash(key: Self.key).hash($0) })
        #expect(hash != message.withUnsafeBytes { SipHash(key: Self.key, rounds: (2, 4)).hash($0) })
        #expect(hash != message.withUnsafeBufferPointer { SipHash(key: (1, 2)).hash($0) })
        for index in message.indices {
            var changed = message
            changed[index] ^= 1
            #expect(hash != changed.withUnsafeBufferPointer { SipHash(key: Self.key).hash($0) })
        }
    }
}
