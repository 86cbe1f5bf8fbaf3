import Observation
import StashSecure

extension Vault.Key where Value == Bool {
    static let signedIn = Vault.Key<Bool>("signed-in")
}

let vault = try Vault(service: "com.example.notes")

@Observable final class AccountModel {
    var title = "Account"
    @ObservationIgnored @VaultEntry(.signedIn, in: vault) var signedIn   // Bool?, tracked
}

let model = AccountModel()
withObservationTracking {
    print(model.signedIn == true ? "signed in" : "signed out")
} onChange: {
    print("the sign-in changed")
}
try model.$signedIn.set(true)         // throws if not stored; then "the sign-in changed"
model.$signedIn.refresh()             // Keychain vaults: read again, e.g. when the app is active
// snippet.hide
print("stored \(try vault[.signedIn] ?? false)")
