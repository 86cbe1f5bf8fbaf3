import ArgumentParser
import Foundation
import Stash

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cache", abstract: "(not built yet)")
}
