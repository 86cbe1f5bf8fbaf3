public import Foundation

extension PropertyList {
    /// Decodes a property list, detecting its format (binary, XML or JSON).
    ///
    /// ```swift
    /// let value = try PropertyList(data: try FileStore.read(url))
    /// ```
    ///
    /// - throws: ``StashError/Code/corruptFile`` or ``StashError/Code/truncatedFile`` for
    ///   bytes that are not a whole property list (a dictionary that holds a key twice is
    ///   one: which value was meant cannot be known), ``StashError/Code/unsupportedValue`` for
    ///   values the enum cannot hold (`null`, UIDs, sets, NaN, integers over 64 bits, two
    ///   spellings of one key such as precomposed and decomposed `"é"`). The
    ///   error's `key` names the place inside the value, such as `root["items"][3]`.
    public init(data: Data) throws {
        try self.init(data: data, format: PropertyListFormat.detect(data))
    }

    /// Decodes a property list in `format`.
    ///
    /// Decoding never crashes on garbage: every offset is checked and nesting is bounded.
    /// Thread-safe: decoding touches nothing but its input.
    ///
    /// - throws: as ``init(data:)``.
    public init(data: Data, format: PropertyListFormat) throws {
        switch format {
        case .binary: self = try BinaryPropertyListReader.decode(data)
        case .xml: self = try XMLPropertyListReader.decode(data)
        case .json: self = try JSONPropertyListReader.decode(data)
        }
    }

    /// Encodes this value in `format`, with dictionary keys sorted so that equal values give
    /// equal bytes.
    ///
    /// ```swift
    /// let bytes = try PropertyList.dictionary(["name": "Ada"]).data(format: .binary)
    /// ```
    ///
    /// - throws: ``StashError/Code/unsupportedValue`` naming the place of a NaN, an
    ///   infinity or an out-of-range date (see ``validate()``).
    public func data(format: PropertyListFormat) throws -> Data {
        switch format {
        case .binary: return try BinaryPropertyListWriter.encode(self)
        case .xml: return try XMLPropertyListWriter.encode(self)
        case .json: return try JSONPropertyListWriter.encode(self)
        }
    }
}

extension PropertyListFormat {
    /// The format of encoded bytes: `bplist00` means binary, a leading `<` (after a byte
    /// order mark and whitespace) XML, anything else is read as JSON.
    ///
    /// ```swift
    /// PropertyListFormat.detect(try FileStore.read(url)) // .binary
    /// ```
    public static func detect(_ data: Data) -> PropertyListFormat {
        if data.starts(with: BinaryPropertyListReader.magic) { return .binary }
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "<") ? .xml : .json
    }

    /// The usual file extension: `plist` for XML and binary, `json` for JSON.
    public var fileExtension: String { self == .json ? "json" : "plist" }
}
