import Foundation
import StashCore

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate that senders use, and the obsolete RFC 850
/// and asctime forms that recipients must still accept. Anything else is invalid, and an
/// invalid `Expires` means "already expired".
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// Parses any of the three formats, exactly as RFC 9110 spells them (names in any case);
    /// `nil` when the text is not a date. Near misses (a missing comma, doubled spaces, a
    /// two-digit year in IMF-fixdate, dashes in it) are rejected: for `Expires` a date that
    /// is wrong in form means "already expired", which is safer than guessing.
    static func parse(_ text: String) -> Date? {
        let scalars = Array(text.utf8)
        return parseIMFFixdate(scalars) ?? parseRFC850(scalars) ?? parseAsctime(scalars)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func parseIMFFixdate(_ s: [UInt8]) -> Date? {
        guard s.count == 29, weekday(s[0..<3]), s[3] == comma, s[4] == space,
              let day = digits(s[5..<7]), s[7] == space, let month = month(s[8..<11]), s[11] == space,
              let year = digits(s[12..<16]), s[16] == space, s[25] == space, gmt(s[26..<29]) else { return nil }
        return make(year: year, month: month, day: day, time: s[17..<25])
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func parseRFC850(_ s: [UInt8]) -> Date? {
        guard let commaIndex = s.firstIndex(of: comma), longWeekdays.contains(lowercased(s[0..<commaIndex])) else { return nil }
        let rest = Array(s[(commaIndex + 1)...])
        guard rest.count == 23, rest[0] == space, let day = digits(rest[1..<3]), rest[3] == dash,
              let month = month(rest[4..<7]), rest[7] == dash, let shortYear = digits(rest[8..<10]), rest[10] == space,
              rest[19] == space, gmt(rest[20..<23]) else { return nil }
        // RFC 9110 §5.6.7: a two-digit year more than 50 years ahead means the past century.
        let year = shortYear + (shortYear < 70 ? 2000 : 1900)
        return make(year: year, month: month, day: day, time: rest[11..<19])
    }

    /// `Sun Nov  6 08:49:37 1994`
    private static func parseAsctime(_ s: [UInt8]) -> Date? {
        guard s.count == 24, weekday(s[0..<3]), s[3] == space, let month = month(s[4..<7]), s[7] == space,
              let day = s[8] == space ? digits(s[9..<10]) : digits(s[8..<10]), s[10] == space,
              s[19] == space, let year = digits(s[20..<24]) else { return nil }
        return make(year: year, month: month, day: day, time: s[11..<19])
    }

    /// Formats `date` as an IMF-fixdate; a date outside the years 1 ... 9999 is written as
    /// the nearest end of that range (one that is not a number as its start), never trapping.
    static func format(_ date: Date) -> String {
        let since1970 = date.timeIntervalSince1970
        let seconds = if since1970 >= TimeInterval(formattableSeconds.upperBound) {
            formattableSeconds.upperBound
        } else if since1970 >= TimeInterval(formattableSeconds.lowerBound) {
            Int(since1970.rounded(.down))
        } else {
            formattableSeconds.lowerBound
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let civil = CivilCalendar.date(days: Int64(days))
        let (year, month, day) = (Int(civil.year), Int(civil.month), Int(civil.day))
        let weekday = weekdays[((days % 7) + 7) % 7]
        let monthName = months[month - 1].capitalized
        return "\(weekday), \(two(day)) \(monthName) \(year) \(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// The seconds since 1970 of the first and last instants of the years 1 ... 9999.
    private static let formattableSeconds = -62_135_596_800...253_402_300_799

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static let space = UInt8(ascii: " ")
    private static let comma = UInt8(ascii: ",")
    private static let dash = UInt8(ascii: "-")
    private static let colon = UInt8(ascii: ":")
    private static let longWeekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self).lowercased()
    }

    private static func weekday(_ bytes: ArraySlice<UInt8>) -> Bool {
        weekdays.contains { $0.lowercased() == lowercased(bytes) }
    }

    private static func month(_ bytes: ArraySlice<UInt8>) -> Int? {
        months.firstIndex(of: lowercased(bytes)).map { $0 + 1 }
    }

    private static func gmt(_ bytes: ArraySlice<UInt8>) -> Bool {
        lowercased(bytes) == "gmt"
    }

    /// Exactly `bytes.count` ASCII digits.
    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    /// `HH:MM:SS`, then the calendar date.
    private static func make(year: Int, month: Int, day: Int, time: ArraySlice<UInt8>) -> Date? {
        let t = Array(time)
        guard t.count == 8, t[2] == colon, t[5] == colon,
              let hour = digits(t[0..<2]), let minute = digits(t[3..<5]), let second = digits(t[6..<8]),
              (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let days = Int(CivilCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day)))
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}
