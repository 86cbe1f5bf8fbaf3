import Foundation
import Stash

/// Scenarios named "secure.…".
let secureScenarios: [String: Scenario] = [
    // secure.write-many KEYRING SERVICE PREFIX COUNT: writes PREFIX-0 … PREFIX-(COUNT-1) into
    // a key-file vault, one entry per write, reporting each acknowledged write.
    "secure.write-many": { arguments in
        guard arguments.count == 4 || arguments.count == 5, let count = Int(arguments[3]) else {
            throw StashError(.unsupportedValue, "usage: secure.write-many KEYRING SERVICE PREFIX COUNT [BARRIER]")
        }
        let keyring = Keyring(folder: URL(fileURLWithPath: arguments[0], isDirectory: true))
        let vault = try Vault(service: arguments[1], keyring: keyring, key: .keyFile())
        report("ready")
        if arguments.count == 5 { try awaitStart(arguments[4]) }
        for index in 0..<count {
            let name = "\(arguments[2])-\(index)"
            try vault.set("value of \(name)", forKey: name)
            report("wrote \(name)")
        }
    },
]
