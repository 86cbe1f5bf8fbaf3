// StashPostgres is one of the server parts: its packages resolve only with the package trait
// `Server`, which a clone of Stash enables by default and a dependent enables on its
// `.package` line.
#if !Server
#error("StashPostgres needs Stash's package trait Server: .package(url: …, from: …, traits: [\"Server\"])")
#endif
