import Foundation
import HTTPTypes

/// Range requests served from a stored complete response (RFC 9110 §14): one byte range
/// (`bytes=0-99`, `bytes=500-`, the suffix `bytes=-200`), honoured only when `If-Range`
/// (if any) still describes the stored response. Several ranges, other units and malformed
/// values are ignored, and the whole response is served, as RFC 9110 §14.2 allows.
enum ByteRange {
    /// What a `Range` request gets from a stored response of `length` bytes.
    enum Answer: Equatable {
        /// The whole response (no usable `Range`, or `If-Range` does not match).
        case whole
        /// `206` with these bytes.
        case partial(ClosedRange<Int>)
        /// `416`: no byte of the range exists.
        case unsatisfiable
    }

    /// How `request`'s `Range` applies to `stored`.
    static func answer(_ request: HTTPRequest, stored: StoredResponse) -> Answer {
        guard request.method == .get, stored.status == 200, let value = request.headerFields[.range],
              ifRangeMatches(request, stored: stored) else { return .whole }
        return answer(range: value, length: stored.bodyLength)
    }

    /// How the `Range` field value `value` applies to a representation of `length` bytes.
    static func answer(range value: String, length: Int) -> Answer {
        let trimmed = value.trimmingWhitespace()
        guard trimmed.count > 6, trimmed.prefix(6).lowercased() == "bytes=" else { return .whole }
        let spec = String(trimmed.dropFirst(6)).trimmingWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = String(spec[..<dash]).trimmingWhitespace()
        let last = String(spec[spec.index(after: dash)...]).trimmingWhitespace()
        if first.isEmpty {
            guard let suffix = digits(last) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - suffix)...(length - 1))
        }
        guard let start = digits(first) else { return .whole }
        let end: Int
        if last.isEmpty {
            end = length - 1
        } else {
            guard let value = digits(last), value >= start else { return .whole }
            end = min(value, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .partial(start...end)
    }

    /// `If-Range` (RFC 9110 §13.1.5): absent, or a strong entity tag equal to the stored one,
    /// or an HTTP date equal to the stored `Last-Modified`.
    static func ifRangeMatches(_ request: HTTPRequest, stored: StoredResponse) -> Bool {
        guard let value = request.headerFields[.ifRange] else { return true }
        if let date = HTTPDate.parse(value) { return stored.lastModified == date }
        guard let tag = EntityTag(value), let storedTag = stored.entityTag else { return false }
        return tag.strongMatches(storedTag)
    }

    /// The response head of `answer` from `stored`, with a current `Age`, whatever holds
    /// the body (``HTTPCache/serve(_:to:now:)`` names the bytes).
    static func head(_ answer: Answer, from stored: StoredResponse, age: TimeInterval) -> HTTPResponse {
        var response = stored.response(age: age)
        switch answer {
        case .whole:
            return response
        case .partial(let range):
            response.status = .partialContent
            response.headerFields[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(stored.bodyLength)"
            response.headerFields[.contentLength] = String(range.count)
            return response
        case .unsatisfiable:
            var fields = HTTPFields()
            for name in [HTTPField.Name.date, .eTag, .lastModified, .age] { fields[values: name] = response.headerFields[values: name] }
            fields[.contentRange] = "bytes */\(stored.bodyLength)"
            fields[.contentLength] = "0"
            return HTTPResponse(status: .rangeNotSatisfiable, headerFields: fields)
        }
    }

    /// A decimal number of at most 18 digits, `nil` otherwise.
    private static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }
}
