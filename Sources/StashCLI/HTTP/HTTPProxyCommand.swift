import ArgumentParser
import Foundation
import Stash

struct HTTPProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "http-proxy", abstract: "(not built yet)")
}
