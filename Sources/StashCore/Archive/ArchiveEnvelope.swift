import Foundation

/// The on-disk shape of an ``Archive``: `{"version": Int, "value": tree}`.
struct ArchiveEnvelope {
    var version: Int
    var value: PropertyList

    init(version: Int, value: PropertyList) {
        self.version = version
        self.value = value
    }

    /// Reads an envelope.
    ///
    /// - throws: the decoding errors of ``PropertyList``, or ``StashError/Code/corruptFile``
    ///   when the property list is not an archive envelope.
    init(decoding data: Data, format: PropertyListFormat) throws {
        let tree = try PropertyList(data: data, format: format)
        guard case .integer(let number)? = tree["version"], let version = Int(exactly: number), version >= 0 else {
            throw StashError(.corruptFile, "not an archive: no version number")
        }
        guard let value = tree["value"] else {
            throw StashError(.corruptFile, "not an archive: no value")
        }
        self.init(version: version, value: value)
    }

    func encoded(format: PropertyListFormat) throws -> Data {
        try PropertyList.dictionary(["version": .integer(Int64(version)), "value": value]).data(format: format)
    }
}
