import Foundation

// Placeholder: the codecs are being written (issue 2). The signatures are the contract.
extension PropertyList {
    /// Decodes a property list, detecting its format (binary, XML or JSON).
    public init(data: Data) throws {
        throw StashError(.unsupportedValue, "property list decoding is not built yet")
    }

    /// Decodes a property list in `format`.
    public init(data: Data, format: PropertyListFormat) throws {
        throw StashError(.unsupportedValue, "property list decoding is not built yet")
    }

    /// Encodes this value in `format`.
    public func data(format: PropertyListFormat) throws -> Data {
        throw StashError(.unsupportedValue, "property list encoding is not built yet")
    }
}
