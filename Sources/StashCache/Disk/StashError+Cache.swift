public import StashCore

extension StashError.Code {
    /// A cache was asked to live somewhere other than a caches or temporary folder.
    public static let unsupportedLocation = Self(rawValue: "unsupported location")
}
