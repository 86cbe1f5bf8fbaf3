import StashCore
import Testing

/// Expects `body` to throw a ``StashError`` with `code`.
func expectCookieError<R>(_ code: StashError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R) {
    let error = #expect(throws: StashError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
}
