import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Stash
import StashHTTPAsyncClient

extension Tour {
    @Sendable static func cookies(_ tour: Tour) async throws {
        let router = Router()
        router.get("/login") { _, _ -> Response in
            var headers = HTTPFields()
            headers.append(HTTPField(name: .setCookie, value: "session=s3ss10n; Path=/; HttpOnly"))
            headers.append(HTTPField(name: .setCookie, value: "theme=dark; Max-Age=86400; Path=/"))
            headers.append(HTTPField(name: .setCookie, value: "evil=1; Domain=com"))
            return Response(status: .ok, headers: headers)
        }
        router.get("/me") { request, _ -> Response in
            Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: request.headers[.cookie] ?? "(no cookie)")))
        }
        let (port, server) = try await Tour.startOrigin(router)
        tour.say("A loopback origin on 127.0.0.1:\(port): /login sets session (no expiry), theme (1 day) and evil (Domain=com).")

        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        do {
            let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 0, directory: nil)
            let jar = try CookieJar(sandbox: tour.sandbox)
            let client = CachingHTTPClient(cache: cache, transport: transport, cookieJar: jar)
            let base = "127.0.0.1:\(port)"
            _ = try await client.send(HTTPRequest(method: .get, scheme: "http", authority: base, path: "/login"))
            tour.say("After GET /login the jar holds (evil was refused: com is a public suffix):")
            for cookie in jar.cookies() { tour.say("  \(cookie)") }
            let me = try await client.send(HTTPRequest(method: .get, scheme: "http", authority: base, path: "/me"))
            tour.say("GET /me sent: \(String(decoding: me.body, as: UTF8.self))")
            tour.say("As cookies.txt (what curl -b reads):")
            for line in jar.exportCookiesTxt().split(separator: "\n") where !line.hasPrefix("# ") { tour.say("  \(line)") }
            jar.close() // as when the app quits
            let relaunched = try CookieJar(sandbox: tour.sandbox)
            tour.say("Next launch: \(relaunched.cookies().map(\.name).joined(separator: ", ")) (the session cookie is gone)")
            relaunched.close()
            try cache.close()
            tour.showFiles(under: tour.sandbox.applicationSupport.appendingPathComponent("Cookies"))
        } catch {
            try? await transport.shutdown()
            server.cancel()
            throw error
        }
        try await transport.shutdown()
        server.cancel()
    }
}
