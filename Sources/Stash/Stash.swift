// `import Stash` gives every library module (StashObjects included) but three, each imported by name where needed:
// - StashSQL, whose re-export of GRDB would bring GRDB's names (`Configuration`, `Row`,
//   `Record`, …) into every file of the app: SQL users `import StashSQL`;
// - StashHTTPServer and StashHTTPAsyncClient, which bring SwiftNIO.
@_exported import StashCore
@_exported import StashObjects
@_exported import StashCache
@_exported import StashPreferences
@_exported import StashSecure
@_exported import StashHTTP
