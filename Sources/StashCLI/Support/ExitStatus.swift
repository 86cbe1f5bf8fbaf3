import ArgumentParser
import Foundation
import StashCore

/// How `stash` ends when a command fails: one line on standard error and an exit status
/// that says what kind of failure it was. Usage mistakes (an unknown option, a missing or
/// malformed argument) alone also print the usage text.
///
/// | status | meaning |
/// |---|---|
/// | 0 | success |
/// | 1 | not found: no such key, entry, suite or file |
/// | 64 | usage mistake (the usage text follows the message) |
/// | 65 | bad data: a corrupt or truncated file, an invalid key or value, a type mismatch |
/// | 69 | unavailable: locked by another process, read-only, an upstream or network failure |
/// | 74 | input/output error, including a full disk |
/// | 77 | permission denied, or a secret that cannot be opened with the key given |
/// | 70 | any other failure |
enum ExitStatus {
    static let notFound: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    static let ioError: Int32 = 74
    static let permission: Int32 = 77

    /// The status for a failure of `code`.
    static func status(for code: StashError.Code) -> Int32 {
        switch code {
        case .notFound: return notFound
        case .corruptFile, .truncatedFile, .invalidKey, .invalidName, .unsupportedValue, .typeMismatch, .unsupportedVersion:
            return dataError
        case .locked, .readOnly, .closed: return unavailable
        case .diskFull, .io: return ioError
        case .permissionDenied: return permission
        default:
            // Codes of other modules (the vault's wrong key, tampered file, …).
            switch code.rawValue {
            case "wrong passphrase", "wrong key", "insecure key file", "key unavailable": return permission
            case "tampered": return dataError
            default: return software
            }
        }
    }

    /// Prints `error` as one line on standard error and exits with its status.
    static func fail(with error: any Error) -> Never {
        let status: Int32
        let message: String
        if let error = error as? StashError {
            status = ExitStatus.status(for: error.code)
            message = error.description
        } else {
            status = software
            message = String(describing: error)
        }
        let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data("stash: \(line)\n".utf8))
        exit(status)
    }
}

/// The entry point: parses the command line, runs the command, and turns failures into one
/// line and an ``ExitStatus``.
@main
enum StashMain {
    static func main() async {
        var command: any ParsableCommand
        do {
            command = try StashCommand.parseAsRoot()
        } catch {
            StashCommand.exit(withError: error)  // usage mistakes, --help, --version
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            StashCommand.exit(withError: error)
        } catch let error as ExitCode {
            StashCommand.exit(withError: error)
        } catch let error as CleanExit {
            StashCommand.exit(withError: error)
        } catch where String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            StashCommand.exit(withError: error)  // `stash SUBCOMMAND --help` and the like
        } catch {
            ExitStatus.fail(with: error)
        }
    }
}
