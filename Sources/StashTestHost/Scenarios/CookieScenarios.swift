import Foundation
import Stash

/// Scenarios named "cookies.…".
let cookieScenarios: [String: Scenario] = [
    // cookies.set-loop FOLDER: opens the CookieJar in FOLDER (holding its writer lock) and
    // stores c0=v0, c1=v1, … for https://example.com/, printing "stored N" after each
    // store returns, until killed.
    "cookies.set-loop": { arguments in
        guard let folder = arguments.first else { throw StashError(.invalidKey, "usage: cookies.set-loop FOLDER") }
        var configuration = CookieJar.Configuration()
        configuration.countLimit = 100_000
        configuration.countLimitPerDomain = 100_000
        let jar = try CookieJar(directory: URL(fileURLWithPath: folder), configuration: configuration)
        report("ready")
        let url = URL(string: "https://example.com/")!
        var index = 0
        while true {
            try jar.setCookie("c\(index)=v\(index); Max-Age=86400", for: url)
            report("stored \(index)")
            index += 1
        }
    },
]
