import Foundation
import HTTPTypes
import StashCore

/// What a decoded stored response must satisfy before the cache serves it. A record comes
/// from a file on disk or a row of a shared table that anything may have written (a damaged
/// disk, a hostile neighbour on the database): the decoder refuses, with
/// `StashError(.corruptFile)`, any value the encoder never writes, so that the cache treats
/// the entry as a miss and removes it instead of serving, or trapping on, what it holds.
extension StoredResponseCoding {
    /// The earliest request or response time accepted: 1970-01-01T00:00:00Z. The cache
    /// stamps both times from its clock, so no stored response is older.
    static let earliestTime: TimeInterval = 0

    /// The first request or response time refused: 10000-01-01T00:00:00Z, the first
    /// instant an HTTP date cannot write (four-digit years).
    static let endOfTime: TimeInterval = 253_402_300_800

    /// How far a response time may precede its request time: a day, so that a wall clock
    /// stepped back during the exchange (NTP, a corrected time zone) does not make the
    /// entry unreadable, while a response "received" years before it was requested is
    /// refused as the damage it is. (The age calculation ignores a negative delay.)
    static let responseTimeMayPrecedeRequestBy: TimeInterval = 86_400

    /// `requestBits` and `responseBits` (the `Double` bit patterns of seconds since 1970) as
    /// dates, when both are finite, in 1970 ..< 10000, and the response time is not before
    /// the request time by more than ``responseTimeMayPrecedeRequestBy``.
    ///
    /// - throws: `StashError(.corruptFile)` otherwise.
    static func checkedTimes(requestBits: UInt64, responseBits: UInt64) throws -> (request: Date, response: Date) {
        let request = Double(bitPattern: requestBits)
        let response = Double(bitPattern: responseBits)
        // Written so that NaN, which fails every comparison, is refused too.
        let range = earliestTime..<endOfTime
        guard range.contains(request), range.contains(response) else {
            throw StashError(.corruptFile, "the times \(request), \(response) of a stored HTTP response are outside 1970..9999")
        }
        guard response >= request - responseTimeMayPrecedeRequestBy else {
            throw StashError(.corruptFile, "a stored HTTP response received \(request - response) s before it was requested")
        }
        return (Date(timeIntervalSince1970: request), Date(timeIntervalSince1970: response))
    }

    /// The field `name: value`, when the name is a valid field name and the value holds no
    /// NUL, CR or LF (the encoder writes fields of `HTTPFields`, which never hold them; a
    /// line break in a value served would split the response).
    ///
    /// - throws: `StashError(.corruptFile)` otherwise.
    static func checkedField(name: String, value: String) throws -> HTTPField {
        guard let fieldName = HTTPField.Name(name) else {
            throw StashError(.corruptFile, "a stored HTTP response has a field named \"\(name.prefix(64))\"")
        }
        guard !value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
            throw StashError(.corruptFile, "the \(name) field of a stored HTTP response holds NUL, CR or LF")
        }
        return HTTPField(name: fieldName, value: value)
    }

    /// A body file's length, when it is an `Int`.
    ///
    /// - throws: `StashError(.corruptFile)` otherwise.
    static func checkedBodyFileLength(_ length: UInt64) throws -> Int {
        guard let length = Int(exactly: length) else { throw StashError(.corruptFile, "a body file of \(length) bytes") }
        return length
    }
}
