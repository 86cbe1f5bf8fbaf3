import ArgumentParser
import Foundation
import Stash

struct DefaultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "defaults", abstract: "(not built yet)")
}
