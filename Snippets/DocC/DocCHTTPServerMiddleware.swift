// snippet.hide
import Hummingbird
import StashHTTP
import StashHTTPServer
let cache = try HTTPCache()
let router = Router()
// snippet.show
router.add(middleware: HTTPCacheMiddleware(cache: cache))
// snippet.hide
print("middleware added")
