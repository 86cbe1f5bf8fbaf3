import Foundation
import Stash

extension Tour {
    @Sendable static func preferences(_ tour: Tour) async throws {
        tour.say("(not built yet)")
    }
}
