import NIOCore
import Testing
@testable import StashHTTPWire

/// ``RequestHeadEnd`` finds the empty line that ends a head however the head is split, and
/// tells a strict head from a lenient one.
struct RequestHeadEndTests {
    private static let strict = Array("GET / HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n".utf8)
    private static let lenient = Array("GET / HTTP/1.1\nHost: a\n\n".utf8)

    @Test(arguments: [(strict, true), (lenient, false)])
    func endIsFoundWhereverTheHeadIsSplit(head: [UInt8], isStrict: Bool) {
        for cut in 0...head.count {
            var end = RequestHeadEnd()
            let first = end.find(in: head[..<cut])
            if cut == head.count {
                #expect(first == head.count)
                continue
            }
            #expect(first == nil, "cut at \(cut)")
            #expect(end.isStrict || !isStrict, "cut at \(cut)")
            let rest = end.find(in: head[cut...])
            #expect(rest == head.count - cut, "cut at \(cut)")
        }
        var end = RequestHeadEnd()
        _ = end.find(in: head.dropLast())
        #expect(end.isStrict == isStrict)
    }

    /// Line ends inside the head, a CR in a value, and leading line ends do not end it; the
    /// state starts again after an end, for the next head.
    @Test func onlyAnEmptyLineEndsAHead() {
        var end = RequestHeadEnd()
        #expect(end.find(in: Array("\r\nGET / HTTP/1.1\r\nX: a\rb\r\n".utf8)) == nil)
        #expect(end.find(in: Array("\r\n".utf8)) == 2)
        #expect(end.isStrict)
        #expect(end.find(in: Array("GET / HTTP/1.1\r\n\r\nGET".utf8)) == 18)
    }

    /// Empty lines before a request line are skipped, as NIO's decoder skips them: they end
    /// no head, in one piece or several, so they cannot stop the header clock.
    @Test func emptyLinesBeforeARequestLineEndNothing() {
        var end = RequestHeadEnd()
        #expect(end.find(in: Array("\r\n\r\n\n\r\n".utf8)) == nil)
        #expect(!Self.holdsEnd(&end, "\r\n\r\n"))
        #expect(end.find(in: Array("GET / HTTP/1.1\r\n\r\n".utf8)) == 18)
        #expect(!Self.holdsEnd(&end, "\r\n\r\n\r\n"))
        #expect(Self.holdsEnd(&end, "GET / HTTP/1.1\r\n\r\n"))
    }

    /// `holdsEnd` gives the same answer as `find` for every split of a head, whether the piece
    /// ends with the blank line (the shortcut) or not, and starts again after an end.
    @Test(arguments: [strict, lenient])
    func holdsEndAgreesWithFind(head: [UInt8]) {
        for cut in 0...head.count {
            var shortcut = RequestHeadEnd()
            var scan = RequestHeadEnd()
            for piece in [head[..<cut], head[cut...]] {
                let held = shortcut.holdsEnd(in: ByteBuffer(bytes: piece).readableBytesView)
                let found = scan.find(in: piece) != nil
                #expect(held == found, "cut at \(cut)")
            }
        }
        var end = RequestHeadEnd()
        #expect(!Self.holdsEnd(&end, "GET / HTTP/1.1\r\n\r"))
        #expect(Self.holdsEnd(&end, "\n"))
        #expect(!Self.holdsEnd(&end, "\r\n\r\n"))
        #expect(Self.holdsEnd(&end, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(!Self.holdsEnd(&end, "GET / HTTP/1.1\r\nHost: a\r\n"))
    }

    private static func holdsEnd(_ end: inout RequestHeadEnd, _ text: String) -> Bool {
        end.holdsEnd(in: ByteBuffer(string: text).readableBytesView)
    }
}
