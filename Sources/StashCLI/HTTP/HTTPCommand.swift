import ArgumentParser
import Foundation
import Stash

struct HTTPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "http", abstract: "(not built yet)")
}
