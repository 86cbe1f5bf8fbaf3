import Foundation
import StashCore
@testable import StashSecure

/// The Keychain as `SecItem*` answers it, in memory: generic passwords matched on class,
/// service, account and access group, with the status codes of SecBase.h for a duplicate
/// add, a missing item, a locked device and a missing entitlement.
final class FakeKeychain: KeychainCalls, @unchecked Sendable {
    private struct State {
        var items: [KeychainAttributes] = []
        var isLocked = false
        var isEntitled = true
        var log: [String] = []
        var beforeAdd: [() -> Void] = []
        var statusOverrides: [String: Int32] = [:]

        /// Records the call; answers the status that refuses it, if any.
        mutating func refusal(_ call: String, _ query: KeychainAttributes) -> Int32? {
            log.append(call)
            if let status = statusOverrides[call] { return status }
            guard query[.itemClass] == .string(KeychainAttributes.genericPassword) else { return FakeKeychain.parameterError }
            if query[.dataProtectionKeychain] == .bool(true), !isEntitled { return KeychainStatus.missingEntitlement }
            if isLocked { return KeychainStatus.interactionNotAllowed }
            return nil
        }
    }

    private let state = LockedValue(State())

    /// The attributes that name an item; the others are the query's options or its data.
    static let identity: [KeychainAttributes.Key] = [.itemClass, .service, .account, .accessGroup]
    /// The `kSecAttrAccessible` values the Security framework accepts for a generic password.
    static let accessibleValues: Set<String> = ["ak", "ck", "aku", "cku", "akpu", "dk", "dku"]
    /// `errSecParam`.
    static let parameterError: Int32 = -50

    /// Every stored item.
    var items: [KeychainAttributes] { state.withLock { $0.items } }
    /// The calls made, in order: `"add"`, `"copy"`, `"update"`, `"delete"`.
    var log: [String] { state.withLock { $0.log } }
    /// While true, every call answers `errSecInteractionNotAllowed`.
    var isLocked: Bool {
        get { state.withLock { $0.isLocked } }
        set { state.withLock { $0.isLocked = newValue } }
    }
    /// While false, every data-protection-keychain query answers `errSecMissingEntitlement`.
    var isEntitled: Bool {
        get { state.withLock { $0.isEntitled } }
        set { state.withLock { $0.isEntitled = newValue } }
    }

    /// Runs `body` (another writer's add, say) just before the next add of this fake.
    func beforeNextAdd(_ body: @escaping () -> Void) {
        state.withLock { $0.beforeAdd.append(body) }
    }

    /// Makes every later call named `call` answer `status`.
    func answer(_ call: String, with status: Int32) {
        state.withLock { $0.statusOverrides[call] = status }
    }

    /// Stores an item as another process would.
    func insert(_ item: KeychainAttributes) {
        state.withLock { $0.items.append(Self.stored(item)) }
    }

    // MARK: KeychainCalls

    func add(_ item: KeychainAttributes) -> Int32 {
        let hooks = state.withLock { state in defer { state.beforeAdd = [] }; return state.beforeAdd }
        hooks.forEach { $0() }
        return state.withLock { state in
            if let refusal = state.refusal("add", item) { return refusal }
            guard case .data? = item[.valueData], let accessible = item[.accessible], case .string(let value) = accessible,
                  Self.accessibleValues.contains(value) else { return Self.parameterError }
            if state.items.contains(where: { Self.matches($0, item) }) { return KeychainStatus.duplicateItem }
            state.items.append(Self.stored(item))
            return KeychainStatus.success
        }
    }

    func copyMatching(_ query: KeychainAttributes) -> KeychainAnswer {
        state.withLock { state in
            if let refusal = state.refusal("copy", query) { return KeychainAnswer(status: refusal, items: []) }
            let all = query[.matchLimit] == .string(KeychainAttributes.matchLimitAll)
            // The data of many items at once is refused by the file-based keychain: never asked for.
            if all, query[.returnData] == .bool(true) { return KeychainAnswer(status: Self.parameterError, items: []) }
            var found = state.items.filter { Self.matches($0, query) }
            if found.isEmpty { return KeychainAnswer(status: KeychainStatus.itemNotFound, items: []) }
            if !all { found = [found[0]] }
            let answers = found.map { item in
                var answer = KeychainAttributes()
                if query[.returnAttributes] == .bool(true) { answer[.account] = item[.account] }
                if query[.returnData] == .bool(true) { answer[.valueData] = item[.valueData] }
                return answer
            }
            return KeychainAnswer(status: KeychainStatus.success, items: answers)
        }
    }

    func update(_ query: KeychainAttributes, to changes: KeychainAttributes) -> Int32 {
        state.withLock { state in
            if let refusal = state.refusal("update", query) { return refusal }
            guard changes.values.keys.allSatisfy({ !Self.identity.contains($0) || $0 == .account }) else { return Self.parameterError }
            let indices = state.items.indices.filter { Self.matches(state.items[$0], query) }
            if indices.isEmpty { return KeychainStatus.itemNotFound }
            for index in indices { state.items[index] = state.items[index].merging(changes) }
            return KeychainStatus.success
        }
    }

    func delete(_ query: KeychainAttributes) -> Int32 {
        state.withLock { state in
            if let refusal = state.refusal("delete", query) { return refusal }
            let before = state.items.count
            state.items.removeAll { Self.matches($0, query) }
            return state.items.count < before ? KeychainStatus.success : KeychainStatus.itemNotFound
        }
    }

    // MARK: Rules

    private static func matches(_ item: KeychainAttributes, _ query: KeychainAttributes) -> Bool {
        identity.allSatisfy { key in query[key] == nil || item[key] == query[key] }
    }

    /// An item as stored: its identity, data and accessibility, without the query's options.
    private static func stored(_ item: KeychainAttributes) -> KeychainAttributes {
        KeychainAttributes(item.values.filter { identity.contains($0.key) || $0.key == .valueData || $0.key == .accessible })
    }
}
