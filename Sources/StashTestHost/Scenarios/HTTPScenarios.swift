import Foundation
import HTTPTypes
import Stash

/// Scenarios named "http.…".
let httpScenarios: [String: Scenario] = [
    // http.store-loop FOLDER FIRST: stores responses for /item/FIRST, /item/FIRST+1, … in an
    // HTTPCache on disk, printing "stored N" after each store returns and "flushed N" after
    // every tenth store has been flushed, until killed.
    "http.store-loop": { arguments in
        guard arguments.count == 2, let first = Int(arguments[1]) else { throw StashError(.invalidKey, "usage: http.store-loop FOLDER FIRST") }
        let folder = arguments[0]
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 256 << 20, directory: URL(fileURLWithPath: folder))
        report("ready")
        var index = first
        while true {
            let request = HTTPRequest(method: .get, scheme: "http", authority: "origin.test", path: "/item/\(index)")
            var fields = HTTPFields()
            fields[.cacheControl] = "max-age=86400"
            fields[.eTag] = "\"\(index)\""
            let body = Data(repeating: UInt8(truncatingIfNeeded: index), count: 16_384 + index)
            cache.storeResponse(HTTPResponse(status: .ok, headerFields: fields), body: body, for: request)
            report("stored \(index)")
            if (index - first) % 10 == 9 {
                try await cache.flush()
                report("flushed \(index)")
            }
            index += 1
        }
    },
]
