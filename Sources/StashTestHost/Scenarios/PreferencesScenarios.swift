import Foundation
import Stash

/// Scenarios named "preferences.…".
let preferencesScenarios: [String: Scenario] = [
    // preferences.write-loop FILE PREFIX: sets PREFIX-<i> = i, then "PREFIX-<i> is <i>x", forever;
    // prints "set PREFIX-<i>" once each pair is acknowledged, until killed.
    "preferences.write-loop": { arguments in
        guard arguments.count == 2 else { throw usage("preferences.write-loop FILE PREFIX") }
        let prefs = try Preferences(url: URL(fileURLWithPath: arguments[0]))
        report("ready")
        var i = 0
        while true {
            let key = "\(arguments[1])-\(i)"
            try prefs.set(i, forKey: key)
            try prefs.set("\(key) is \(i)x", forKey: key + ".text")
            report("set \(key)")
            i += 1
        }
    },
    // preferences.write-range FILE PREFIX COUNT TOTAL: sets PREFIX-0..<COUNT, then waits (at most
    // 20 s) until the suite holds TOTAL keys, written by anyone, and prints "saw <n>".
    "preferences.write-range": { arguments in
        guard arguments.count == 4, let count = Int(arguments[2]), let total = Int(arguments[3]) else {
            throw usage("preferences.write-range FILE PREFIX COUNT TOTAL")
        }
        let prefs = try Preferences(url: URL(fileURLWithPath: arguments[0]))
        report("ready")
        for i in 0..<count { try prefs.set("\(arguments[1]) \(i)", forKey: "\(arguments[1])-\(i)") }
        report("written")
        let deadline = Date().addingTimeInterval(20)
        while prefs.keys.count < total, Date() < deadline { usleep(10_000) }
        report("saw \(prefs.keys.count)")
    },
    // preferences.churn FILE PREFIX COMPACT: three rounds of setting PREFIX-0..<300 (round * 1000
    // + i), then removes every third of them and parent-0..<50, then (COMPACT = yes) prints
    // "churned", compacts and sets PREFIX-after = "after"; prints "done".
    "preferences.churn": { arguments in
        guard arguments.count == 3 else { throw usage("preferences.churn FILE PREFIX COMPACT") }
        let prefs = try Preferences(url: URL(fileURLWithPath: arguments[0]))
        let prefix = arguments[1]
        for round in 0..<3 {
            for i in 0..<300 { try prefs.set(round * 1000 + i, forKey: "\(prefix)-\(i)") }
        }
        for i in stride(from: 0, to: 300, by: 3) { try prefs.removeValue(forKey: "\(prefix)-\(i)") }
        for i in 0..<50 { try prefs.removeValue(forKey: "parent-\(i)") }
        if arguments[2] == "yes" {
            report("churned")
            try prefs.compact()
            try prefs.set("after", forKey: "\(prefix)-after")
        }
        report("done")
    },
    // preferences.count FILE KEY COUNT: adds 1 to the integer KEY COUNT times, alternating
    // `increment(forKey:)` and `update(forKey:_:)`, then prints "done".
    "preferences.count": { arguments in
        guard arguments.count == 3, let count = Int(arguments[2]) else { throw usage("preferences.count FILE KEY COUNT") }
        let prefs = try Preferences(url: URL(fileURLWithPath: arguments[0]))
        let key = arguments[1]
        report("ready")
        for i in 0..<count {
            if i % 2 == 0 {
                try prefs.increment(forKey: key)
            } else {
                try prefs.update(forKey: key) { old in
                    guard case .integer(let value)? = old else { return .integer(1) }
                    return .integer(value + 1)
                }
            }
        }
        report("done")
    },
    // preferences.foundation-write SUITE KEY=VALUE…: Foundation's UserDefaults sets the values
    // (integers when they parse, strings otherwise), synchronizes, and prints "done".
    // Run it with HOME / XDG_CONFIG_HOME pointing at a temporary folder.
    "preferences.foundation-write": { arguments in
        guard let suite = arguments.first, let defaults = UserDefaults(suiteName: suite) else {
            throw usage("preferences.foundation-write SUITE KEY=VALUE…")
        }
        for pair in arguments.dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw usage("preferences.foundation-write SUITE KEY=VALUE…") }
            if let number = Int(parts[1]) { defaults.set(number, forKey: parts[0]) } else { defaults.set(parts[1], forKey: parts[0]) }
        }
        defaults.set(["a", "b"], forKey: "list")
        defaults.set(true, forKey: "flag")
        defaults.set(2.5, forKey: "ratio")
        defaults.synchronize()
        report("done")
    },
    // preferences.observed-set FILE KEY VALUE [suspend]: (suspends the store first, with
    // "suspend") sets KEY to the integer VALUE through a `@Preference` wrapper, prints "set"
    // once the assignment returned, and waits to be killed.
    "preferences.observed-set": { arguments in
        guard arguments.count == 3 || arguments.count == 4, let value = Int(arguments[2]) else {
            throw usage("preferences.observed-set FILE KEY VALUE [suspend]")
        }
        let prefs = try Preferences(url: URL(fileURLWithPath: arguments[0]))
        if arguments.count == 4 { prefs.suspend() }
        let preference = Preference(Preferences.Key(arguments[1], default: 0), store: prefs)
        preference.wrappedValue = value
        if let error = preference.projectedValue.lastError { throw error }
        report("set")
        while true { try await Task.sleep(for: .seconds(3600)) }
    },
]
