import Foundation
import StashCore

/// The jar file: `STCJ`, a version, the cookies, and a SHA-256 of all that, so damage is
/// reported as ``/StashCore/StashError/Code/corruptFile`` instead of read as cookies.
extension CookieJar {
    private static let magic: [UInt8] = Array("STCJ".utf8)
    private static let version: UInt16 = 1

    private enum Flag {
        static let hostOnly: UInt8 = 1, secure: UInt8 = 2, httpOnly: UInt8 = 4, expires: UInt8 = 8
    }

    static func encode<Cookies: Collection<Cookie>>(_ cookies: Cookies) -> Data {
        var writer = BinaryWriter(capacity: 64 + cookies.count * 96)
        writer.write(contentsOf: magic)
        writer.write(version)
        writer.writeVarInt(UInt64(cookies.count))
        for cookie in cookies {
            writer.writeCounted(cookie.name)
            writer.writeCounted(cookie.value)
            writer.writeCounted(cookie.domain)
            writer.writeCounted(cookie.path)
            var flags: UInt8 = 0
            if cookie.isHostOnly { flags |= Flag.hostOnly }
            if cookie.isSecure { flags |= Flag.secure }
            if cookie.isHTTPOnly { flags |= Flag.httpOnly }
            if cookie.expires != nil { flags |= Flag.expires }
            writer.write(flags)
            writer.write(sameSiteCode(cookie.sameSite))
            if let expires = cookie.expires { writer.write(milliseconds(expires)) }
            writer.write(milliseconds(cookie.created))
            writer.write(milliseconds(cookie.lastAccessed))
        }
        let digest = writer.withUnsafeBytes { SHA256.digest(of: $0) }
        writer.write(contentsOf: digest)
        return writer.data
    }

    static func decode(_ data: Data, path: String) throws -> [Cookie] {
        guard data.count >= magic.count + 2 + 32 else {
            throw StashError(.truncatedFile, "the cookie jar file is too short", path: path)
        }
        let body = data.prefix(data.count - 32)
        guard Array(data.suffix(32)) == SHA256.digest(of: body) else {
            throw StashError(.corruptFile, "the cookie jar file fails its checksum", path: path)
        }
        do {
            return try BinaryReader.read(body) { reader in
                guard try reader.readArray(count: magic.count) == magic else {
                    throw StashError(.corruptFile, "not a cookie jar file")
                }
                let version = try reader.read(UInt16.self)
                guard version == Self.version else {
                    throw StashError(.unsupportedVersion, "cookie jar format \(version) is newer than this build reads")
                }
                let count = try reader.readCount()
                var cookies: [Cookie] = []
                cookies.reserveCapacity(count)
                for _ in 0..<count {
                    let name = try reader.readString(count: reader.readCount())
                    let value = try reader.readString(count: reader.readCount())
                    let domain = try reader.readString(count: reader.readCount())
                    let cookiePath = try reader.readString(count: reader.readCount())
                    let flags = try reader.readByte()
                    let sameSite = try sameSite(code: reader.readByte())
                    let expires = flags & Flag.expires != 0 ? date(try reader.read(Int64.self)) : nil
                    let created = date(try reader.read(Int64.self))
                    let lastAccessed = date(try reader.read(Int64.self))
                    cookies.append(Cookie(
                        name: name, value: value, domain: domain, path: cookiePath, expires: expires,
                        isHostOnly: flags & Flag.hostOnly != 0, isSecure: flags & Flag.secure != 0,
                        isHTTPOnly: flags & Flag.httpOnly != 0, sameSite: sameSite, created: created, lastAccessed: lastAccessed
                    ))
                }
                guard reader.isAtEnd else { throw StashError(.corruptFile, "bytes after the last cookie") }
                return cookies
            }
        } catch var error as StashError {
            error.path = path
            throw error
        }
    }

    private static func sameSiteCode(_ sameSite: Cookie.SameSite?) -> UInt8 {
        guard let sameSite else { return 0 }
        switch sameSite {
        case .strict: return 1
        case .lax: return 2
        case .none: return 3
        }
    }

    private static func sameSite(code: UInt8) throws -> Cookie.SameSite? {
        switch code {
        case 0: return nil
        case 1: return .strict
        case 2: return .lax
        case 3: return Cookie.SameSite.none
        default: throw StashError(.corruptFile, "unknown SameSite code \(code)")
        }
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        return value.isFinite ? Int64(max(-9.2e18, min(9.2e18, value))) : 0
    }

    private static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
