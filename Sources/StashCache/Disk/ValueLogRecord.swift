import Foundation
import StashCore

/// One small value in a segment of the value log (``ValueLog``), with what a read needs
/// besides it: its key, to tell it from another record, and the dates and metadata of its
/// row, so that a read found through the ``LocationIndex`` needs no manifest lookup.
///
/// Layout (little-endian), ``headerSize`` bytes then the key, metadata and value:
///
/// | bytes | field |
/// |---|---|
/// | 0..<4 | CRC-32 of bytes 4 to the end |
/// | 4..<8 | key length |
/// | 8..<12 | metadata length, `0xFFFF_FFFF` for none |
/// | 12..<16 | value length |
/// | 16..<24 | creation date (seconds since 1970) |
/// | 24..<32 | expiry date, NaN for none |
/// | 32..<40 | sliding window in seconds, NaN for none |
///
/// A record is never trusted: ``decode(_:)`` checks that its lengths add up to the bytes
/// read and that its checksum matches, so a torn write, bytes lost in a power cut, or a
/// file written behind the cache's back reads as no record.
struct ValueLogRecord {
    static let headerSize = 40

    var created: Double
    var expires: Double?
    var sliding: Double?
    var metadata: Data?
    var value: Data

    /// The entry this record is at `location`: its dates and metadata, with its creation as
    /// its last access (the manifest's or the unflushed date replaces it where one is known).
    func diskRecord(at location: ValueLocation) -> DiskRecord {
        DiskRecord(
            size: value.count, file: nil, created: created, accessed: created,
            expires: expires, sliding: sliding, metadata: metadata, location: location
        )
    }

    /// How many bytes the record of `key`, `metadata` and a value of `valueCount` bytes takes.
    static func span(keyCount: Int, metadata: Data?, valueCount: Int) -> Int {
        headerSize + keyCount + (metadata?.count ?? 0) + valueCount
    }

    /// Appends the record of `key` (its value `value`, the dates and metadata of `record`) to
    /// `buffer`; returns its span.
    @discardableResult
    static func append(key: String, _ record: DiskRecord, value: Data, to buffer: inout [UInt8]) -> Int {
        var key = key
        let start = buffer.count
        key.withUTF8 { key in
            let span = self.span(keyCount: key.count, metadata: record.metadata, valueCount: value.count)
            buffer.append(contentsOf: repeatElement(0, count: headerSize))
            buffer.append(contentsOf: key)
            if let metadata = record.metadata { buffer.append(contentsOf: metadata) }
            buffer.append(contentsOf: value)
            buffer.withUnsafeMutableBytes { bytes in
                let header = UnsafeMutableRawBufferPointer(rebasing: bytes[start...])
                header.storeBytes(of: UInt32(key.count).littleEndian, toByteOffset: 4, as: UInt32.self)
                header.storeBytes(of: (record.metadata.map { UInt32($0.count) } ?? UInt32.max).littleEndian, toByteOffset: 8, as: UInt32.self)
                header.storeBytes(of: UInt32(value.count).littleEndian, toByteOffset: 12, as: UInt32.self)
                header.storeBytes(of: record.created.bitPattern.littleEndian, toByteOffset: 16, as: UInt64.self)
                header.storeBytes(of: (record.expires ?? .nan).bitPattern.littleEndian, toByteOffset: 24, as: UInt64.self)
                header.storeBytes(of: (record.sliding ?? .nan).bitPattern.littleEndian, toByteOffset: 32, as: UInt64.self)
                let checksum = CRC32.checksum(header.baseAddress! + 4, count: span - 4)
                header.storeBytes(of: checksum.littleEndian, toByteOffset: 0, as: UInt32.self)
            }
        }
        return buffer.count - start
    }

    /// The record in `bytes` (exactly one record's span), or `nil` when its lengths do not
    /// add up to them, its checksum does not match, or it is not the record of `key` (any
    /// key when `nil`).
    static func decode(_ bytes: UnsafeRawBufferPointer, key: UnsafeBufferPointer<UInt8>?) -> ValueLogRecord? {
        guard bytes.count >= headerSize, let base = bytes.baseAddress else { return nil }
        func word(_ offset: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        func real(_ offset: Int) -> Double { Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) }
        let metadataWord = word(8)
        let metadataLength = metadataWord == UInt32.max ? 0 : metadataWord
        // Summed in 64 bits: each length is under 2^32, and `Int` may have 32 (watchOS).
        guard UInt64(headerSize) + UInt64(word(4)) + UInt64(metadataLength) + UInt64(word(12)) == UInt64(bytes.count),
              CRC32.checksum(base + 4, count: bytes.count - 4) == word(0)
        else { return nil }
        // Each fits in `Int` now: their sum is `bytes.count`.
        let keyCount = Int(word(4)), metadataCount = Int(metadataLength)
        guard key.map({ $0.count == keyCount && ($0.isEmpty || memcmp(base + headerSize, $0.baseAddress!, keyCount) == 0) }) ?? true
        else { return nil }
        let created = real(16), expires = real(24), sliding = real(32)
        let keyEnd = headerSize + keyCount, metadataEnd = keyEnd + metadataCount
        return ValueLogRecord(
            created: created,
            expires: expires.isNaN ? nil : expires, sliding: sliding.isNaN ? nil : sliding,
            metadata: metadataWord == UInt32.max ? nil : Data(bytes[keyEnd..<metadataEnd]),
            value: Data(bytes[metadataEnd...])
        )
    }
}
