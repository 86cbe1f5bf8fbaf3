import Foundation
import StashCore

/// Property lists that start the seed corpora: every kind of value, nesting, shared values,
/// Unicode, and the edges of integers and dates.
enum PropertyListSamples {
    static let all: [PropertyList] = [
        ["name": "Ada", "age": 36, "ratio": 0.75, "admin": true],
        [1, -1, .integer(.max), .integer(.min), 0.5, "", "caf\u{E9} ☕️", .data(Data([0, 255, 7]))],
        ["nested": ["a": [["b": [1, 2, ["c": "deep"]]]]], "shared": ["x", "x", "x"]],
        ["date": .date(Date(timeIntervalSinceReferenceDate: 700_000_000)), "empty": [:], "list": []],
        .string(String(repeating: "long string ", count: 40)),
    ]
}
