// `import Stash` gives every library module but the server side (StashHTTPServer) and the
// AsyncHTTPClient transport, which bring SwiftNIO: import those by name where you need them.
@_exported import StashCore
@_exported import StashSQL
@_exported import StashObjects
@_exported import StashCache
@_exported import StashPreferences
@_exported import StashSecure
@_exported import StashHTTP
