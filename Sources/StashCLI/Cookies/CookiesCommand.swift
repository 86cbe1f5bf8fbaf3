import ArgumentParser
import Foundation
import Stash

/// `stash cookies list|delete|clear|import|export`: look into and edit an app's cookie jar
/// (`Application Support/Cookies`), and move cookies to and from curl's cookies.txt.
struct CookiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cookies",
        abstract: "List, delete, clear, import and export the cookies of an app's CookieJar.",
        discussion: """
            The jar is the app's Application Support/Cookies folder (--app, --root), or --dir. \
            list and export open it read-only, so they work while the app runs; delete, clear \
            and import need the writer lock and fail with 'locked' while the app has it.

              stash cookies list --app com.example.reader
              curl -c cookies.txt https://example.com/ && stash cookies import cookies.txt --app com.example.reader
              stash cookies export --app com.example.reader > cookies.txt && curl -b cookies.txt https://example.com/
            """,
        subcommands: [ListCommand.self, DeleteCommand.self, ClearCommand.self, ImportCommand.self, ExportCommand.self]
    )

    struct ListCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "One line per cookie: domain, path, name, value, expiry, flags.")
        @OptionGroup var jar: CookieJarOptions
        @Option(name: .long, help: "Only the cookies of this domain (ASCII form) and its subdomains.") var domain: String?

        func run() async throws {
            let jar = try self.jar.open(access: .readOnly)
            defer { jar.close() }
            var cookies = jar.cookies()
            if let domain = domain?.lowercased() {
                cookies = cookies.filter { $0.domain == domain || $0.domain.hasSuffix("." + domain) }
            }
            for cookie in cookies {
                var flags: [String] = [cookie.isHostOnly ? "host-only" : "subdomains"]
                if cookie.isSecure { flags.append("secure") }
                if cookie.isHTTPOnly { flags.append("httponly") }
                if let sameSite = cookie.sameSite { flags.append("samesite=" + sameSite.rawValue.lowercased()) }
                let expires = cookie.expires.map { ISO8601DateFormatter().string(from: $0) } ?? "session"
                print([cookie.domain, cookie.path, "\(cookie.name)=\(cookie.value)", expires, flags.joined(separator: ",")].joined(separator: "\t"))
            }
        }
    }

    struct DeleteCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete the cookies matching every option given.")
        @OptionGroup var jar: CookieJarOptions
        @Option(name: .long, help: "The cookies' domain.") var domain: String?
        @Flag(name: .long, help: "With --domain: its subdomains' cookies too.") var subdomains = false
        @Option(name: .long, help: "The cookies' name.") var name: String?
        @Option(name: .long, help: "The cookies' path.") var path: String?

        func validate() throws {
            guard domain != nil || name != nil || path != nil else {
                throw ValidationError("name at least one of --domain, --name, --path (or use 'stash cookies clear')")
            }
        }

        func run() async throws {
            let jar = try self.jar.open(access: .readWrite)
            defer { jar.close() }
            let count = try jar.delete(domain: domain, includingSubdomains: subdomains, name: name, path: path)
            print("deleted \(count) cookie\(count == 1 ? "" : "s")")
        }
    }

    struct ClearCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Delete every cookie.")
        @OptionGroup var jar: CookieJarOptions

        func run() async throws {
            let jar = try self.jar.open(access: .readWrite)
            defer { jar.close() }
            let count = jar.count
            try jar.removeAll()
            print("deleted \(count) cookie\(count == 1 ? "" : "s")")
        }
    }

    struct ImportCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Import a Netscape cookies.txt file (curl -c writes one); all or nothing.")
        @OptionGroup var jar: CookieJarOptions
        @Argument(help: "The cookies.txt file, or - for standard input.") var file: String

        func run() async throws {
            let jar = try self.jar.open(access: .readWrite)
            defer { jar.close() }
            let count: Int
            if file == "-" {
                let data = FileHandle.standardInput.readDataToEndOfFile()
                guard let text = String(data: data, encoding: .utf8) else {
                    throw StashError(.corruptFile, "standard input is not UTF-8 text")
                }
                count = try jar.importCookiesTxt(text)
            } else {
                count = try jar.importCookiesTxt(contentsOf: URL(fileURLWithPath: file))
            }
            print("imported \(count) cookie\(count == 1 ? "" : "s")")
        }
    }

    struct ExportCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Write the cookies as a Netscape cookies.txt file (curl -b reads it).")
        @OptionGroup var jar: CookieJarOptions
        @Argument(help: "The file to write (atomically); standard output when omitted.") var file: String?

        func run() async throws {
            let jar = try self.jar.open(access: .readOnly)
            defer { jar.close() }
            if let file {
                try jar.exportCookiesTxt(to: URL(fileURLWithPath: file))
            } else {
                print(jar.exportCookiesTxt(), terminator: "")
            }
        }
    }
}

/// Which jar: the sandbox's (`--app`, `--root`) or a folder (`--dir`).
struct CookieJarOptions: ParsableArguments {
    @OptionGroup var sandbox: SandboxOptions
    @Option(name: .long, help: "The jar folder (the one holding cookies.jar), instead of the sandbox's.") var dir: String?

    func open(access: CookieJar.Access) throws -> CookieJar {
        var configuration = CookieJar.Configuration()
        configuration.access = access
        // The command shows and keeps what the app saved, session cookies included.
        configuration.keepsSessionCookies = true
        let folder = try dir.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? sandbox.sandbox().applicationSupport.appendingPathComponent("Cookies", isDirectory: true)
        if access == .readOnly, !FileStore.isFolder(folder) {
            return CookieJar(inMemory: configuration)
        }
        return try CookieJar(directory: folder, configuration: configuration)
    }
}
