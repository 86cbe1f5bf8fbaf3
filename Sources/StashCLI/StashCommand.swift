import ArgumentParser

/// `stash`: the root command. `StashMain` runs it and reports failures (see ``ExitStatus``).
struct StashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stash",
        abstract: "Stash: an application's whole local data layer, from the command line.",
        subcommands: [
            TourCommand.self,
            PathsCommand.self,
            PlistCommand.self,
            CacheCommand.self,
            ObjectsCommand.self,
            DefaultsCommand.self,
            VaultCommand.self,
            HTTPCommand.self,
            HTTPProxyCommand.self,
            CookiesCommand.self,
        ]
    )
}
