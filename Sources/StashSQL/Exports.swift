// `import StashSQL` (or `import Stash`) gives GRDB's whole API: Stash opens the databases,
// GRDB is how you use them. Stash does not rewrap SQL.
@_exported import GRDB
