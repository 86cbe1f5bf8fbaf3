import ArgumentParser
import Foundation
import Stash

struct VaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "vault", abstract: "(not built yet)")
}
