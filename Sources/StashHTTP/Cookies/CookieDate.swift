import Foundation
import StashCore

/// RFC 6265 5.1.1: the forgiving date parser of the `Expires` attribute, which reads the
/// many date shapes servers send (`Wed, 09 Jun 2021 10:18:14 GMT`, `Wed, 09-Jun-21 …`,
/// `Sun Nov  6 08:49:37 1994`).
enum CookieDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?, month: Int?, year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            let bytes = Array(token)
            if time == nil, let found = parseTime(bytes) { time = found; continue }
            if day == nil, let found = leadingDigits(bytes, 1...2) { day = found; continue }
            if month == nil, bytes.count >= 3 {
                let prefix = String(decoding: bytes[0..<3], as: UTF8.self).lowercased()
                if let index = months.firstIndex(of: prefix) { month = index + 1; continue }
            }
            if year == nil, let found = leadingDigits(bytes, 2...4) { year = found; continue }
        }
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59 else { return nil }
        let days = CivilCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day))
        // Day 31 of a 30-day month (or 30 February) is not a date.
        let back = CivilCalendar.date(days: days)
        guard back.month == Int64(month), back.day == Int64(day) else { return nil }
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: seconds)
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// 1 to 2 (or 2 to 4) digits, then anything that is not a digit.
    private static func leadingDigits(_ bytes: [UInt8], _ count: ClosedRange<Int>) -> Int? {
        let digits = bytes.prefix(while: isDigit)
        guard count.contains(digits.count) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `hh:mm:ss`, each part one or two digits, then anything that is not a digit.
    private static func parseTime(_ bytes: [UInt8]) -> (Int, Int, Int)? {
        var parts: [Int] = []
        var index = 0
        for part in 0..<3 {
            let start = index
            while index < bytes.count, isDigit(bytes[index]), index - start < 2 { index += 1 }
            guard index > start else { return nil }
            parts.append(bytes[start..<index].reduce(0) { $0 * 10 + Int($1 - 0x30) })
            if part < 2 {
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        if index < bytes.count, isDigit(bytes[index]) { return nil }
        return (parts[0], parts[1], parts[2])
    }
}
