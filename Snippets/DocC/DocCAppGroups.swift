import Foundation
import Stash

let group = "group.com.example.app"
let shared = try Preferences(suite: "shared", group: group)
let thumbnails = try DiskCache(name: "thumbnails", in: Sandbox.main.groupSandbox(group))   // its Library/Caches

// When the app goes to the background (scenePhase == .background, or
// applicationDidEnterBackground), give up every lock in the shared container:
func enterBackground() async throws {
    shared.suspend()
    try await thumbnails.suspend()        // writes what is staged first
}

// When it is active again:
func becomeActive() throws {
    shared.resume()
    do {
        try thumbnails.resume()
    } catch StashError.Code.locked {
        // The widget or extension is the cache's writer right now: read only, retry later.
    }
}
// snippet.hide
try await enterBackground()
print("suspended \(thumbnails.isSuspended)")
try becomeActive()
print("suspended \(thumbnails.isSuspended)")
