import Foundation
import Testing
@testable import StashPreferences

/// What an open reserves its index for: ``LogScanner/estimateRecords(_:from:to:)``, from the
/// records at the start of the log rather than from all of them.
struct LogScannerEstimateTests {
    /// `count` records `int-<i>` = i, in closed groups as a writer leaves them, after a
    /// header's worth of zeroes.
    private static func log(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: LogFile.headerSize + count * 32)
        var encoder = RecordEncoder()
        var group = RecordGroup(start: LogFile.headerSize)
        var end = LogFile.headerSize
        try bytes.withUnsafeMutableBytes { buffer in
            for i in 0..<count {
                try encoder.encode(.set, key: "int-\(i)", value: .integer(Int64(i)), expiry: nil)
                end = encoder.withBytes { group.append($0, to: buffer.baseAddress!, at: end) }
            }
            end = group.close(buffer.baseAddress!, at: end)
        }
        return Array(bytes[..<end])
    }

    private static func estimate(_ bytes: [UInt8]) -> (estimate: Int, count: Int) {
        bytes.withUnsafeBytes { buffer in
            let scanner = LogScanner(version: LogFile.version)
            return (
                scanner.estimateRecords(buffer.baseAddress!, from: LogFile.headerSize, to: buffer.count),
                scanner.countRecords(buffer.baseAddress!, from: LogFile.headerSize, to: buffer.count)
            )
        }
    }

    @Test func isTheCountWhenTheSampleHoldsTheWholeLog() throws {
        for count in [0, 1, 15, 16, 17, 300] {
            let (estimate, exact) = Self.estimate(try Self.log(count))
            #expect(exact == count)
            #expect(estimate == count, "\(count) records")
        }
    }

    /// Keys grow from `int-0` to `int-99999`: the sample's records are shorter than the
    /// rest, so the estimate errs high (room to spare), never far.
    @Test func staysCloseAboveTheCountOfALargeLog() throws {
        for count in [10_000, 100_000] {
            let (estimate, exact) = Self.estimate(try Self.log(count))
            #expect(exact == count)
            #expect(estimate >= count && estimate <= count + count / 2, "\(estimate) for \(count) records")
        }
    }

    /// Zeroes (or damage) within the sample end the records: they are not taken for more.
    @Test func stopsAtBytesThatAreNoRecordInTheSample() throws {
        let bytes = try Self.log(300) + [UInt8](repeating: 0, count: 256 * 1024)
        #expect(Self.estimate(bytes).estimate == 300)
    }

    @Test func isZeroForBytesThatAreNoRecords() {
        var bytes = [UInt8](repeating: 0, count: LogFile.headerSize + 64 * 1024)
        #expect(Self.estimate(bytes).estimate == 0)
        for i in LogFile.headerSize..<bytes.count { bytes[i] = 0xFF }
        #expect(Self.estimate(bytes).estimate == 0)
    }
}
