public import StashCore

extension StashError.Code {
    /// A body was longer than the caller agreed to hold in memory
    /// (``HTTPBodyStream/collect(upTo:)``): nothing more of it was read.
    ///
    /// ```swift
    /// do { _ = try await answer.body.collect(upTo: 1 << 20) } catch StashError.Code.bodyTooLarge { … }
    /// ```
    public static let bodyTooLarge = Self(rawValue: "body too large")
}
