import Foundation

/// `YYYY-MM-DDTHH:MM:SSZ` in UTC, the date format of XML property lists, written and read
/// without a formatter (formatters are slow to create and not thread-safe on every platform).
enum ISO8601Date {
    /// Formats `date` to whole seconds, as Apple's writer does (fractions are dropped).
    static func format(_ date: Date) -> String {
        let total = Int64(date.timeIntervalSince1970.rounded(.down))
        var days = total / 86_400
        var seconds = total % 86_400
        if seconds < 0 {
            seconds += 86_400
            days -= 1
        }
        let (year, month, day) = CivilCalendar.date(days: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = year >= 0 && year < 10_000
            ? String(repeating: "0", count: 4 - String(year).count) + String(year)
            : String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z`; `nil` for anything else.
    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: "T", maxSplits: 1)
        guard parts.count == 2, parts[1].hasSuffix("Z") else { return nil }
        let dateParts = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        let timeParts = parts[1].dropLast().split(separator: ":", omittingEmptySubsequences: false)
        guard dateParts.count == 3, timeParts.count == 3,
              dateParts[0].count == 4, dateParts[1].count == 2, dateParts[2].count == 2,
              let year = Int64(dateParts[0]), let month = Int64(dateParts[1]), let day = Int64(dateParts[2]),
              let hour = Int64(timeParts[0]), let minute = Int64(timeParts[1]),
              let second = Double(timeParts[2]), second >= 0, second < 61,
              (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
              timeParts[2].allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
        else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60) + second
        return Date(timeIntervalSince1970: seconds)
    }

}
