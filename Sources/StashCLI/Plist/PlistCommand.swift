public import ArgumentParser
import Foundation
import Stash

/// `stash plist`: read and convert property-list files.
struct PlistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plist",
        abstract: "Print and convert property lists (XML, binary bplist00, JSON).",
        subcommands: [PlistPrintCommand.self, PlistConvertCommand.self]
    )
}

extension PropertyListFormat: ExpressibleByArgument {}

/// `stash plist print FILE`.
struct PlistPrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print a property list file (any format) as a readable tree."
    )

    @Argument(help: "The file to read; its format is detected.")
    var file: String

    func run() throws {
        let url = URL(fileURLWithPath: file)
        let value = try PropertyList(contentsOf: url)
        let format = PropertyListFormat.detect(try FileStore.read(url))
        print("// \(url.lastPathComponent): \(format.rawValue) property list")
        print(PlistPrinter.render(value))
    }
}

/// `stash plist convert FILE --to FORMAT [--output F]`.
struct PlistConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a property list file to another format (atomically).",
        discussion: "Without --output the file is replaced in place, as plutil -convert does."
    )

    @Argument(help: "The file to read; its format is detected.")
    var file: String

    @Option(name: .long, help: "The format to write: \(PropertyListFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var to: PropertyListFormat

    @Option(name: .long, help: "Where to write (default: replace FILE).")
    var output: String?

    func run() throws {
        let source = URL(fileURLWithPath: file)
        let destination = URL(fileURLWithPath: output ?? file)
        let value = try PropertyList(contentsOf: source)
        try value.write(to: destination, format: to)
        print("wrote \(destination.path) (\(to.rawValue), \(try FileStore.size(of: destination)) bytes)")
    }
}
