import Foundation
import Testing
@testable import StashHTTP

/// HTTP dates (RFC 9110 §5.6.7): three formats in, IMF-fixdate out, garbage rejected.
struct HTTPDateTests {
    static let reference = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                      "SUN, 06 NOV 1994 08:49:37 gmt"])
    func acceptedFormats(_ text: String) {
        #expect(HTTPDate.parse(text) == Self.reference)
    }

    @Test(arguments: ["0", "", "-1", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "tomorrow",
                      "Sun, 06 Nov 94 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT", "Sun, 06  Nov  1994 08:49:37 GMT",
                      "Sun, 06-Nov-1994 08:49:37 GMT", "Sun, 06 Nov 1994 08.49.37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC"])
    func rejected(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(Self.reference) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1_700_000_000)) == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400))) == Date(timeIntervalSince1970: 951_782_400))
    }
}
