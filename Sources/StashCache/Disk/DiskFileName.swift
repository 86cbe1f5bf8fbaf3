import StashCore

/// Names the file of a file-backed value: the SHA-256 of the key in hex, a random 64-bit
/// generation, and the key's extension when it has a short alphanumeric one (the
/// SDImageCache convention, so that `…/4f1c…e2-09a1…7c.png` opens in an image viewer).
///
/// Each write gets a name never used before: a replacement writes a new file beside the
/// old one, and the old one is deleted once the row naming the new one is committed. So
/// the bytes of a file always belong to the row that names it, and a crash before the
/// commit leaves the old row with its own file (the new one, named by no row, is deleted
/// at the next open).
enum DiskFileName {
    static let maxExtensionLength = 8

    /// A new name for a value of `key`.
    static func unique(forKey key: String) -> String {
        let generation = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let name = SHA256.hexDigest(of: key) + "-" + String(repeating: "0", count: 16 - generation.count) + generation
        guard let pathExtension = pathExtension(of: key) else { return name }
        return name + "." + pathExtension
    }

    /// The extension of the last path component, ignoring a URL's query and fragment.
    static func pathExtension(of key: String) -> String? {
        // Read on every file-backed hit: ASCII keys (nearly all of them, URLs included) are
        // scanned byte by byte, which gives the same answer as the `Character` scan below.
        if key.utf8.allSatisfy({ $0 < 0x80 }) { return asciiPathExtension(of: key.utf8) }
        var path = Substring(key)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        if let slash = path.lastIndex(of: "/") { path = path[path.index(after: slash)...] }
        guard let dot = path.lastIndex(of: "."), dot != path.startIndex else { return nil }
        let candidate = path[path.index(after: dot)...]
        guard !candidate.isEmpty, candidate.count <= maxExtensionLength,
              candidate.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) })
        else { return nil }
        return String(candidate).lowercased()
    }

    private static func asciiPathExtension(of bytes: String.UTF8View) -> String? {
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let start = bytes[..<end].lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
        guard let dot = bytes[start..<end].lastIndex(of: UInt8(ascii: ".")), dot != start else { return nil }
        let candidate = bytes[bytes.index(after: dot)..<end]
        guard !candidate.isEmpty, candidate.count <= maxExtensionLength,
              candidate.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return nil }
        return String(decoding: candidate, as: UTF8.self).lowercased()
    }
}
