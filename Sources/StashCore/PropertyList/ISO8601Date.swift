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
        let (year, month, day) = civil(fromDays: days)
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
        let days = days(fromCivil: year, month, day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60) + second
        return Date(timeIntervalSince1970: seconds)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
