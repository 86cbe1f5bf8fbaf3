public import Foundation

/// A property-list value: what plist files hold, and what `UserDefaults` stores.
///
/// Reads and writes Apple's XML and binary (`bplist00`) formats and JSON.
///
/// ```swift
/// let settings: PropertyList = .dictionary(["volume": .real(0.8), "name": .string("Ada")])
/// let xml = try settings.data(format: .xml)
/// let back = try PropertyList(data: xml)      // the format is detected
/// ```
///
/// A value is immutable and `Sendable`.
public enum PropertyList: Sendable, Hashable {
    /// Text (`<string>`); any Unicode.
    case string(String)
    /// A signed 64-bit integer (`<integer>`).
    case integer(Int64)
    /// A finite double (`<real>`); NaN and infinities cannot be written.
    case real(Double)
    /// `<true/>` or `<false/>`.
    case bool(Bool)
    /// A moment (`<date>`), between the years 1 and 9999. XML keeps whole seconds.
    case date(Date)
    /// Bytes (`<data>`, base64 in XML and JSON).
    case data(Data)
    /// An ordered list of values.
    case array([PropertyList])
    /// String keys and values; encoders write the keys sorted.
    case dictionary([String: PropertyList])
}

/// The encodings of a property list.
public enum PropertyListFormat: String, Sendable, CaseIterable {
    /// Apple's XML property list (`<?xml …?><plist version="1.0">`).
    case xml
    /// Apple's binary property list (`bplist00`).
    case binary
    /// JSON. Dates become ISO 8601 strings and data becomes base64 strings.
    case json
}
