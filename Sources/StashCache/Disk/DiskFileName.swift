import StashCore

/// Names the file of a file-backed entry: the SHA-256 of the key in hex, plus the key's
/// extension when it has a short alphanumeric one (the SDImageCache convention, so that
/// `…/4f1c…e2.png` opens in an image viewer).
///
/// The name depends on the key alone, so a replacement lands on the same file and a stale
/// file is found without a lookup.
enum DiskFileName {
    static let maxExtensionLength = 8

    static func forKey(_ key: String) -> String {
        let hash = SHA256.hexDigest(of: key)
        guard let pathExtension = pathExtension(of: key) else { return hash }
        return hash + "." + pathExtension
    }

    /// The extension of the last path component, ignoring a URL's query and fragment.
    static func pathExtension(of key: String) -> String? {
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
}
