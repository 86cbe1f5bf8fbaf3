import StashSecure

let vault = try Vault(service: "com.example.notes")
try vault.set("s3cr3t", forKey: "api-token")
let token = try vault.string(forKey: "api-token")

let refresh = Vault.Key<String>("refresh-token")
try vault.set("r-123", for: refresh)
let value = try vault[refresh]
// snippet.hide
print("token \(token ?? "-") refresh \(value ?? "-")")
