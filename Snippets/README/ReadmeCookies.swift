import Foundation
import HTTPTypes
import StashHTTP

// snippet.hide
let cache = try HTTPCache(sandbox: .main)
// snippet.show
let jar = try CookieJar(sandbox: .main)
let client = CachingHTTPClient(cache: cache, transport: URLSessionTransport(), cookieJar: jar)
_ = try await client.send(HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/login"))
let cookies = jar.cookies()                     // what example.com set
try jar.setCookie("theme=dark; Max-Age=86400", for: URL(string: "https://example.com/")!)
try jar.delete(domain: "example.com", includingSubdomains: true)   // sign out
try jar.importCookiesTxt(contentsOf: URL(fileURLWithPath: "cookies.txt"))   // from curl -c
try jar.exportCookiesTxt(to: URL(fileURLWithPath: "cookies.txt"))           // for curl -b
