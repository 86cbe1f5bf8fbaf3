import Foundation
import Stash

extension Tour {
    @Sendable static func databases(_ tour: Tour) async throws {
        tour.say("(not built yet)")
    }
}
