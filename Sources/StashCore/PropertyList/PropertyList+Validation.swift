import Foundation

extension PropertyList {
    /// Checks that every value in the tree can be written in every format.
    ///
    /// The only values of the enum that no format stores faithfully are non-finite reals
    /// (NaN and the infinities) and dates outside the years 1 to 9999: JSON has no spelling for them and Apple's
    /// readers disagree on them, so Stash refuses them at write time rather than producing a
    /// file that reads back differently.
    ///
    /// ```swift
    /// try PropertyList.dictionary(["ratio": .real(.nan)]).validate()
    /// // throws: unsupported value: key 'root["ratio"]': NaN is not allowed
    /// ```
    ///
    /// - throws: ``StashError/Code/unsupportedValue`` whose `key` names the offending place.
    public func validate() throws {
        var path = PropertyListPath()
        try validate(at: &path)
    }

    func validate(at path: inout PropertyListPath) throws {
        switch self {
        case .real(let value):
            try PropertyList.checkFinite(value, at: path)
        case .date(let date):
            try PropertyList.checkFinite(date.timeIntervalSinceReferenceDate, at: path)
            guard PropertyList.dateRange.contains(date.timeIntervalSince1970) else {
                throw path.unsupported("date is outside the years 1 to 9999")
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                path.push(index)
                try item.validate(at: &path)
                path.pop()
            }
        case .dictionary(let entries):
            for (key, value) in entries {
                path.push(key)
                try value.validate(at: &path)
                path.pop()
            }
        case .string, .integer, .bool, .data:
            break
        }
    }

    /// The years 1 to 9999, in seconds since 1970: what an ISO 8601 date in an XML
    /// property list can spell.
    static let dateRange: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    static func checkFinite(_ value: Double, at path: PropertyListPath) throws {
        if value.isNaN { throw path.unsupported("NaN is not allowed") }
        if value.isInfinite { throw path.unsupported("infinity is not allowed") }
    }
}
