import Foundation
import Stash

extension Tour {
    @Sendable static func sandboxAndFiles(_ tour: Tour) async throws {
        tour.say("(not built yet)")
    }
}
