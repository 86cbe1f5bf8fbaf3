import Foundation
import Stash

extension Tour {
    @Sendable static func propertyListsAndArchives(_ tour: Tour) async throws {
        tour.say("(not built yet)")
    }
}
