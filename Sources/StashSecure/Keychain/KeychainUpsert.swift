/// How ``KeychainStorage`` stores a value: update the item, add it when there is none, and
/// update again when another writer added it in between, so that two first writes of one
/// entry at once (two threads, an app and its extension) both succeed, the later one
/// winning, instead of one failing with `errSecDuplicateItem`.
///
/// It sees only the result codes of the two Security calls (`SecItemUpdate`, `SecItemAdd`),
/// which its caller makes.
enum KeychainUpsert {
    /// Rounds of update-then-add before giving up: each lost race needs another writer to
    /// add the item between this one's update and add, and a remover to delete it again
    /// before the next update.
    static let attempts = 3

    /// The last Security call's result and what it was (`"update"` or `"add"`, for the error
    /// message).
    struct Outcome: Equatable {
        let status: Int32
        let action: String
    }

    /// Runs `update`, then `add` when the item is missing, then `update` again when the add
    /// found a duplicate (another writer's first write), at most ``attempts`` rounds.
    /// Answers the last call's result: success, or the error to report.
    static func store(update: () -> Int32, add: () -> Int32) -> Outcome {
        var outcome = Outcome(status: KeychainStatus.itemNotFound, action: "update")
        for _ in 0..<attempts {
            let updated = update()
            guard updated == KeychainStatus.itemNotFound else { return Outcome(status: updated, action: "update") }
            let added = add()
            outcome = Outcome(status: added, action: "add")
            guard added == KeychainStatus.duplicateItem else { return outcome }
        }
        return outcome
    }
}
