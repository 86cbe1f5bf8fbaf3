// snippet.hide
import StashHTTP
let cache = try HTTPCache(sandbox: .main)
// snippet.show
let jar = try CookieJar(sandbox: .main)
let client = CachingHTTPClient(cache: cache, transport: URLSessionTransport(), cookieJar: jar)
// snippet.hide
print("jar \(jar.cookies().count)")
_ = client
