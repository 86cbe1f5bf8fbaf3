import ArgumentParser
import Foundation
import Stash

struct PlistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "plist", abstract: "(not built yet)")
}
