import Testing
@testable import StashHTTP

/// `Cache-Control` parsing: duplicates, invalid values, quoted strings, field-name lists.
struct CacheControlParsingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var lines: [String]
        var directive: String
        var seconds: CacheControl.DeltaSeconds?
        var testDescription: String { lines.joined(separator: " | ") }
    }

    static let cases: [Case] = [
        Case(lines: ["max-age=60"], directive: "max-age", seconds: .seconds(60)),
        Case(lines: ["MAX-AGE=60"], directive: "max-age", seconds: .seconds(60)),
        Case(lines: ["max-age=\"60\""], directive: "max-age", seconds: .seconds(60)),
        Case(lines: ["max-age=060"], directive: "max-age", seconds: .seconds(60)),
        Case(lines: ["max-age=1800, max-age=1"], directive: "max-age", seconds: .seconds(1800)),
        Case(lines: ["max-age=1", "max-age=1800"], directive: "max-age", seconds: .seconds(1)),
        Case(lines: ["max-age=99999999999999"], directive: "max-age", seconds: .seconds(2_147_483_648)),
        Case(lines: ["max-age=a60"], directive: "max-age", seconds: .invalid),
        Case(lines: ["max-age=60.0"], directive: "max-age", seconds: .invalid),
        Case(lines: ["max-age='60'"], directive: "max-age", seconds: .invalid),
        Case(lines: ["max-age"], directive: "max-age", seconds: .invalid),
        Case(lines: ["max-age =60"], directive: "max-age", seconds: nil),
        Case(lines: ["max-age= 60"], directive: "max-age", seconds: nil),
        Case(lines: ["ext=\"max-age=60\", max-age=1"], directive: "max-age", seconds: .seconds(1)),
        Case(lines: ["max-age=1, ext=\"a, max-age=60\""], directive: "max-age", seconds: .seconds(1)),
        Case(lines: ["ext=\"unterminated, max-age=60"], directive: "max-age", seconds: nil),
        Case(lines: [" , ,max-age=5,, "], directive: "max-age", seconds: .seconds(5)),
    ]

    @Test(arguments: cases) func deltaSeconds(_ test: Case) {
        #expect(CacheControl(fieldValues: test.lines).seconds(test.directive) == test.seconds)
    }

    @Test func qualifiedAndUnqualifiedForms() {
        let directives = CacheControl(fieldValues: ["no-cache=\"Set-Cookie, X-A\", private=x-b, max-age=5"])
        #expect(!directives.isUnqualified("no-cache"))
        #expect(directives.listedFieldNames("no-cache") == ["set-cookie", "x-a"])
        #expect(directives.listedFieldNames("private") == ["x-b"])
        #expect(CacheControl(fieldValues: ["no-cache"]).isUnqualified("no-cache"))
    }

    @Test func quotedStringEscapes() {
        let directives = CacheControl(fieldValues: [#"ext="a \"quoted\" value", no-store"#])
        #expect(directives.first("ext")?.argument == #"a "quoted" value"#)
        #expect(directives.contains("no-store"))
    }

    @Test func fieldListsRespectQuotes() {
        #expect(FieldList.split(#" a , "b, c" ,, d "#) == ["a", #""b, c""#, "d"])
        #expect(FieldList.normalized(["1", " 2 ,3"]) == "1,2,3")
        #expect(FieldList.normalized([]) == nil)
    }
}
