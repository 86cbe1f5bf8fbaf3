public import Foundation

extension PropertyList {
    /// Reads a property list file in any format (detected from its content).
    ///
    /// ```swift
    /// let settings = try PropertyList(contentsOf: sandbox.preferences.appendingPathComponent("app.plist"))
    /// ```
    ///
    /// - throws: ``StashError/Code/notFound`` for a missing file; ``StashError/Code/corruptFile``,
    ///   ``StashError/Code/truncatedFile`` or ``StashError/Code/unsupportedValue`` naming the
    ///   file (`path`) and the place inside the value (`key`). The file is never modified.
    public init(contentsOf url: URL) throws {
        let data = try FileStore.read(url)
        do {
            try self.init(data: data)
        } catch var error as StashError {
            error.path = url.path
            throw error
        }
    }

    /// Writes this value to `url` atomically (see ``FileStore/write(_:to:permissions:durability:)``):
    /// a crash or a power cut leaves the old file or the new one, never a mix.
    ///
    /// ```swift
    /// try settings.write(to: url, format: .binary)
    /// ```
    ///
    /// - parameters:
    ///   - url: The destination; its folder must exist.
    ///   - format: XML (the default, as Apple's tools), binary or JSON.
    ///   - durability: What the write must survive before returning.
    /// - throws: ``StashError/Code/unsupportedValue`` before anything is written when the
    ///   value cannot be encoded; file-system errors of ``FileStore``.
    public func write(to url: URL, format: PropertyListFormat = .xml, durability: FileStore.Durability = .powerSafe) throws {
        let data: Data
        do {
            data = try self.data(format: format)
        } catch var error as StashError {
            error.path = url.path
            throw error
        }
        try FileStore.write(data, to: url, durability: durability)
    }
}
