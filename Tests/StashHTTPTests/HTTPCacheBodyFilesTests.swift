import Foundation
import HTTPTypes
import StashCache
import StashCore
@testable import StashHTTP
import StashHTTPAsyncClient
import NIOCore
import StashTestSupport
import Testing

/// Bodies kept in files of the disk cache: a hit opens the file during the lookup and counts
/// the access, a file gone makes a miss (never a 200 whose body fails), one body takes at
/// most an eighth of the disk capacity, and a store the disk refuses leaves no body file.
struct HTTPCacheBodyFilesTests {
    /// A cache over a real disk cache in a temporary folder, on a manual clock shared by
    /// both (trimming orders by the disk cache's access dates).
    struct Fixture {
        let folder = TemporaryFolder("http-body-files")
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let disk: DiskCache
        let cache: HTTPCache
        /// Trips to the origin, by path.
        let trips = LockedValue<[String: Int]>([:])

        init(diskCapacity: Int, collapses: Bool = false) throws {
            var configuration = DiskCache.Configuration()
            configuration.sizeLimit = diskCapacity
            configuration.trimRatio = 0.8
            configuration.clock = clock
            disk = try DiskCache(directory: folder.url, configuration: configuration)
            cache = HTTPCache(
                storage: .local(memoryCapacity: 1 << 20, directory: folder.url, diskCapacity: diskCapacity, disk: disk),
                mode: .private, collapsesRequests: collapses, storesResponsesThatSetCookies: false, clock: clock
            )
        }

        /// The bytes the origin sends for `path`: `size` of them, seeded by the path.
        static func content(_ path: String, size: Int) -> Data {
            let seed = UInt8(truncatingIfNeeded: path.utf8.reduce(0) { $0 &+ Int($1) })
            return Data((0..<size).map { UInt8(truncatingIfNeeded: $0 / 4096) &+ seed })
        }

        /// How the origin's body says where it ends.
        enum Framing: CaseIterable {
            /// `Content-Length`.
            case length
            /// `Transfer-Encoding: chunked`.
            case chunked
            /// Neither: the connection's close ends it.
            case close
        }

        /// Asks for `path`, whose origin sends `size` bytes in 256 KiB parts framed as
        /// `framing` says, and reads the answer to its end.
        @discardableResult
        func get(_ path: String, size: Int, framing: Framing = .length, range: String? = nil) async throws -> (StreamedHTTPResponse, Data) {
            var request = HTTPRequest(method: .get, scheme: "https", authority: "origin.test", path: path)
            if let range { request.headerFields[.range] = range }
            let answer = try await cache.streamResponse(to: request) { request, _ in
                trips.withLock { $0[path, default: 0] += 1 }
                var fields: HTTPFields = [.cacheControl: "max-age=86400"]
                switch framing {
                case .length: fields[.contentLength] = String(size)
                case .chunked: fields[.transferEncoding] = "chunked"
                case .close: break
                }
                let content = Self.content(path, size: size)
                let offset = LockedValue(0)
                return (HTTPResponse(status: .ok, headerFields: fields), HTTPBodyStream(next: {
                    offset.withLock { offset -> Data? in
                        guard offset < content.count else { return nil }
                        defer { offset = min(content.count, offset + (256 << 10)) }
                        return content.subdata(in: offset..<min(content.count, offset + (256 << 10)))
                    }
                }))
            }
            return (answer, try await answer.body.collect())
        }

        func trips(_ path: String) -> Int { trips.withLock { $0[path] ?? 0 } }

        func request(_ path: String) -> HTTPRequest {
            HTTPRequest(method: .get, scheme: "https", authority: "origin.test", path: path)
        }

        /// The disk cache key of the body file of `path`'s stored response.
        func bodyFileKey(_ path: String) -> String? {
            PrimaryCacheKey(request(path)).flatMap { cache.localVariants(for: $0).first?.bodyFile?.key }
        }

        /// Files of the disk cache's folder still being written (none once bodies are over).
        func incomingFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("files").path)
                .filter { $0.hasPrefix(".incoming.") }
        }
    }

    /// A large body read often outlives colder ones when the disk cache trims: its hits
    /// count as accesses of its file.
    @Test func aPopularLargeBodySurvivesATrimOfColderOnes() async throws {
        let fixture = try Fixture(diskCapacity: 24 << 20)
        let size = 2 << 20
        try await fixture.get("/popular", size: size)
        #expect(fixture.bodyFileKey("/popular") != nil, "a 2 MiB body is kept in a file")
        for index in 0..<8 {
            fixture.clock.advance(by: 10)
            try await fixture.get("/cold-\(index)", size: size)
        }
        fixture.clock.advance(by: 10)
        let (hit, body) = try await fixture.get("/popular", size: size)
        #expect(hit.outcome == .cache)
        #expect(body == Fixture.content("/popular", size: size))
        fixture.clock.advance(by: 10)
        for index in 0..<4 { try await fixture.get("/new-\(index)", size: size) }
        try await fixture.disk.trim()
        #expect(fixture.disk.totalSize <= 24 << 20)
        let (again, served) = try await fixture.get("/popular", size: size)
        #expect(again.outcome == .cache, "the popular body was trimmed before colder ones")
        #expect(served == Fixture.content("/popular", size: size))
        #expect(fixture.trips("/popular") == 1)
        #expect(fixture.cache.cachedResponse(for: fixture.request("/cold-0")) == nil, "the coldest body was kept")
        try fixture.cache.close()
    }

    /// A body file deleted between the store and the hit: the hit is a miss that fetches
    /// the response again and answers it whole, and the lookup without the origin finds
    /// nothing (never a 200 whose body fails).
    @Test func aBodyFileDeletedBeforeTheHitMakesAMiss() async throws {
        let fixture = try Fixture(diskCapacity: 64 << 20)
        let size = 3 << 20
        try await fixture.get("/video", size: size)
        try await fixture.get("/other", size: size)
        for path in ["/video", "/other"] {
            let key = try #require(fixture.bodyFileKey(path))
            let file = try #require(fixture.disk.fileURL(for: key))
            try FileManager.default.removeItem(at: file)
        }
        let (answer, body) = try await fixture.get("/video", size: size)
        #expect(answer.outcome == .network)
        #expect(answer.response.status == .ok)
        #expect(body == Fixture.content("/video", size: size))
        #expect(fixture.trips("/video") == 2)
        let (again, stored) = try await fixture.get("/video", size: size, range: "bytes=100-199")
        #expect(again.outcome == .cache, "the body fetched again is stored again")
        #expect(stored == Fixture.content("/video", size: size).subdata(in: 100..<200))

        #expect(fixture.cache.cachedResponse(for: fixture.request("/other")) == nil)
        #expect(fixture.bodyFileKey("/other") == nil, "the variant without its file is dropped")
        try fixture.cache.close()
    }

    /// A body file cut short on disk behind the cache's back is a file that is gone: a
    /// streamed hit is a miss answered whole by the origin (never a `200` whose
    /// `Content-Length` the file cannot honour), an offline lookup finds nothing, the direct
    /// lookup finds nothing, and the variant and its disk cache entry are dropped.
    @Test func aBodyFileCutShortBehindTheCachesBackMakesAMissAndDropsTheVariant() async throws {
        let fixture = try Fixture(diskCapacity: 64 << 20)
        let size = 3 << 20
        for path in ["/video", "/offline", "/direct"] {
            try await fixture.get(path, size: size)
            let key = try #require(fixture.bodyFileKey(path))
            let handle = try FileHandle(forWritingTo: try #require(fixture.disk.fileURL(for: key)))
            try handle.truncate(atOffset: UInt64(size / 2))
            try handle.close()
        }

        let videoFile = try #require(fixture.bodyFileKey("/video"))
        let (answer, body) = try await fixture.get("/video", size: size)
        #expect(answer.outcome == .network)
        #expect(answer.response.headerFields[.contentLength] == String(size))
        #expect(body == Fixture.content("/video", size: size))
        #expect(fixture.trips("/video") == 2)
        #expect(!fixture.disk.contains(videoFile), "the cut file's entry stays")

        let offlineFile = try #require(fixture.bodyFileKey("/offline"))
        let offline = try await fixture.cache.streamResponse(to: fixture.request("/offline"), policy: .returnCacheDataDontLoad) { _, _ in
            Issue.record("the origin was asked")
            throw URLError(.notConnectedToInternet)
        }
        #expect(offline.outcome == .unavailable)
        #expect(fixture.bodyFileKey("/offline") == nil, "the variant without its whole file stays")
        #expect(!fixture.disk.contains(offlineFile))

        let directFile = try #require(fixture.bodyFileKey("/direct"))
        #expect(fixture.cache.cachedResponse(for: fixture.request("/direct")) == nil)
        #expect(fixture.bodyFileKey("/direct") == nil, "the variant without its whole file stays")
        #expect(!fixture.disk.contains(directFile))
        try fixture.cache.close()
    }

    /// A stale-while-revalidate hit whose body file is gone is a miss, and that miss is the
    /// one trip to the origin: no background revalidation starts for a hit that did not
    /// stand. A hit that stands is revalidated once in the background (`flush()` waits for
    /// it). A real origin on 127.0.0.1 counts the requests.
    @Test func aStaleWhileRevalidateHitWithoutItsFileMakesOneTripToTheOrigin() async throws {
        let folder = TemporaryFolder("http-body-files-swr")
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))
        let origin = try await TestOrigin.start(clock: clock)
        let transport = AsyncHTTPClientTransport(timeout: .seconds(10))
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 64 << 20, directory: folder.url, clock: clock)
        let content = String(repeating: "0123456789abcdef", count: (2 << 20) / 16)
        for path in ["/gone", "/kept"] {
            origin.set(path, TestOrigin.Reply(fields: [("Cache-Control", "max-age=1, stale-while-revalidate=600")], body: content))
        }
        func get(_ path: String) async throws -> (HTTPCacheOutcome, Data) {
            let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: path)
            let answer = try await cache.streamResponse(to: request) { try await transport.stream($0, body: $1) }
            return (answer.outcome, try await answer.body.collect())
        }
        for path in ["/gone", "/kept"] { _ = try await get(path) }
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(origin.port)", path: "/gone")
        let key = try #require(PrimaryCacheKey(request))
        let bodyFile = try #require(cache.localVariants(for: key).first?.bodyFile?.key)
        let file = try #require(cache.hybrid?.disk.fileURL(for: bodyFile))
        try FileManager.default.removeItem(at: file)
        clock.advance(by: 10)

        let (missed, missedBody) = try await get("/gone")
        #expect(missed == .network)
        #expect(missedBody == Data(content.utf8))
        let (hit, hitBody) = try await get("/kept")
        #expect(hit == .cache)
        #expect(hitBody == Data(content.utf8))
        try await cache.flush()
        #expect(origin.requests("/gone").count == 2, "the file gone made more than one trip")
        #expect(origin.requests("/kept").count == 2, "the hit that stood was not revalidated once")
        try cache.close()
        origin.stop()
        try await transport.shutdown()
    }

    /// A `304` that says `no-store` for a response whose body file is gone: the stored
    /// variant is dropped (by its body file: the freshened copy was never written), and
    /// fetched again, so a later request does not try the missing file again.
    @Test func aNotModifiedForAResponseWithoutItsFileDropsTheStoredVariant() async throws {
        let fixture = try Fixture(diskCapacity: 64 << 20)
        let size = 2 << 20
        let content = Fixture.content("/page", size: size)
        let noStore = LockedValue(false)
        let trips = LockedValue<[String]>([])
        func get() async throws -> StreamedHTTPResponse {
            try await fixture.cache.streamResponse(to: fixture.request("/page")) { request, _ in
                let conditional = request.headerFields[.ifNoneMatch] != nil
                trips.withLock { $0.append(conditional ? "conditional" : "whole") }
                var fields: HTTPFields = [.eTag: "\"1\"", .cacheControl: noStore.withLock { $0 } ? "no-store" : "max-age=1"]
                if conditional { return (HTTPResponse(status: .notModified, headerFields: fields), HTTPBodyStream(Data())) }
                fields[.contentLength] = String(size)
                // In two parts, as from a network: a body arriving whole stays in memory.
                let parts = LockedValue([content.prefix(size / 2), content.suffix(from: size / 2)])
                return (HTTPResponse(status: .ok, headerFields: fields), HTTPBodyStream(next: {
                    parts.withLock { $0.isEmpty ? nil : Data($0.removeFirst()) }
                }))
            }
        }
        _ = try await get().body.collect()
        let bodyFile = try #require(fixture.bodyFileKey("/page"))
        let file = try #require(fixture.disk.fileURL(for: bodyFile))
        try FileManager.default.removeItem(at: file)
        noStore.withLock { $0 = true }
        fixture.clock.advance(by: 10)

        let answer = try await get()
        #expect(answer.outcome == .network)
        #expect(try await answer.body.collect() == content)
        #expect(trips.withLock { $0 } == ["whole", "conditional", "whole"])
        #expect(fixture.bodyFileKey("/page") == nil, "the variant without its file stayed")
        try fixture.cache.close()
    }

    /// A body file that is there but cannot be opened now (here a link that loops, as a
    /// process out of file descriptors cannot open it either) makes a miss that keeps the
    /// variant and its file: once the file opens again, it answers.
    @Test func aBodyFileThatCannotBeOpenedNowKeepsTheVariant() async throws {
        let fixture = try Fixture(diskCapacity: 64 << 20)
        let size = 2 << 20
        try await fixture.get("/film", size: size)
        let bodyFile = try #require(fixture.bodyFileKey("/film"))
        let url = try #require(fixture.disk.fileURL(for: bodyFile))
        let aside = url.appendingPathExtension("aside")
        try FileManager.default.moveItem(at: url, to: aside)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: url.lastPathComponent)

        #expect(fixture.cache.cachedResponse(for: fixture.request("/film")) == nil)
        let offline = try await fixture.cache.streamResponse(to: fixture.request("/film"), policy: .returnCacheDataDontLoad) { _, _ in
            Issue.record("the origin was asked")
            throw URLError(.notConnectedToInternet)
        }
        #expect(offline.outcome == .unavailable)
        #expect(fixture.bodyFileKey("/film") == bodyFile, "the variant was dropped")

        try FileManager.default.removeItem(at: url)
        try FileManager.default.moveItem(at: aside, to: url)
        let (hit, body) = try await fixture.get("/film", size: size)
        #expect(hit.outcome == .cache)
        #expect(body == Fixture.content("/film", size: size))
        #expect(fixture.trips("/film") == 1)
        try fixture.cache.close()
    }

    /// `cachedResponse(for:)` of a body kept in a file reads what the answer sends: the
    /// whole body, the requested range, nothing for `HEAD`.
    @Test func aDirectLookupReadsOnlyWhatItAnswers() async throws {
        let fixture = try Fixture(diskCapacity: 64 << 20)
        let size = 3 << 20
        let content = Fixture.content("/file", size: size)
        try await fixture.get("/file", size: size)
        let whole = try #require(fixture.cache.cachedResponse(for: fixture.request("/file")))
        #expect(whole.body == content)
        var ranged = fixture.request("/file")
        ranged.headerFields[.range] = "bytes=-10"
        let part = try #require(fixture.cache.cachedResponse(for: ranged))
        #expect(part.response.status == .partialContent)
        #expect(part.body == content.suffix(10))
        var head = fixture.request("/file")
        head.method = .head
        let headAnswer = try #require(fixture.cache.cachedResponse(for: head))
        #expect(headAnswer.body.isEmpty)
        #expect(headAnswer.response.headerFields[.contentLength] == String(size))
        try fixture.cache.close()
    }

    /// One body may take an eighth of the disk capacity: a longer one passes through whole
    /// and is not stored, whether its length is announced or found while it streams; one
    /// within the limit is.
    @Test(arguments: [Fixture.Framing.length, .chunked])
    func aBodyOverAnEighthOfTheDiskPassesThroughUnstored(framing: Fixture.Framing) async throws {
        let fixture = try Fixture(diskCapacity: 16 << 20)
        let size = (2 << 20) + 1
        let (miss, body) = try await fixture.get("/huge", size: size, framing: framing)
        #expect(miss.outcome == .network)
        #expect(body == Fixture.content("/huge", size: size))
        let (again, _) = try await fixture.get("/huge", size: size, framing: framing)
        #expect(again.outcome == .network)
        #expect(fixture.trips("/huge") == 2)
        #expect(try fixture.incomingFiles().isEmpty)

        try await fixture.get("/fits", size: 2 << 20, framing: framing)
        let (hit, _) = try await fixture.get("/fits", size: 2 << 20, framing: framing)
        #expect(hit.outcome == .cache)
        try fixture.cache.close()
    }

    /// A body only the connection's close ends is passed on whole but not stored, small or
    /// large: a cut connection would have ended it the same way.
    @Test func aCloseDelimitedBodyIsNotStored() async throws {
        let fixture = try Fixture(diskCapacity: 64 << 20)
        for (path, size) in [("/small", 10_000), ("/large", 3 << 20)] {
            let (miss, body) = try await fixture.get(path, size: size, framing: .close)
            #expect(miss.outcome == .network)
            #expect(body == Fixture.content(path, size: size))
            let (again, _) = try await fixture.get(path, size: size, framing: .close)
            #expect(again.outcome == .network, "\(path) was stored")
        }
        #expect(try fixture.incomingFiles().isEmpty)
        try fixture.cache.close()
    }

    /// A body whose transport framed its end (HTTP/2's END_STREAM) is stored without a
    /// `Content-Length` or chunks, small (memory) or large (a body file).
    @Test func aBodyTheTransportFramedIsStoredWithoutALength() async throws {
        let fixture = try Fixture(diskCapacity: 64 << 20)
        let trips = LockedValue(0)
        for (path, size) in [("/small", 10_000), ("/large", 3 << 20)] {
            let content = Fixture.content(path, size: size)
            func get() async throws -> (HTTPCacheOutcome, Data) {
                let answer = try await fixture.cache.streamResponse(to: fixture.request(path)) { _, _ in
                    trips.withLock { $0 += 1 }
                    let parts = LockedValue([content.prefix(size / 2), content.suffix(from: size / 2)])
                    let body = HTTPBodyStream(next: { parts.withLock { $0.isEmpty ? nil : Data($0.removeFirst()) } }, endsFramed: true)
                    return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600"]), body)
                }
                return (answer.outcome, try await answer.body.collect())
            }
            #expect(try await get() == (.network, content))
            #expect(try await get() == (.cache, content), "\(path) was not stored")
        }
        #expect(trips.withLock { $0 } == 2)
        try fixture.cache.close()
    }

    /// A body whose transport framed its end (HTTP/2, no `Content-Length`) stays framed
    /// through a cache in front of another: the next layer stores what the first one passes
    /// on, whether from the origin (the storing wrapper) or from a body file (its reader).
    @Test func aFramedBodyStaysFramedThroughACache() async throws {
        let inner = try Fixture(diskCapacity: 64 << 20)
        let outer = try HTTPCache(memoryCapacity: 16 << 20, diskCapacity: 0, directory: nil, clock: inner.clock)
        let trips = LockedValue(0)
        let size = 3 << 20
        let origin: HTTPStreamingSend = { request, _ in
            trips.withLock { $0 += 1 }
            let content = Fixture.content(request.path ?? "", size: size)
            let parts = LockedValue([content.prefix(size / 2), content.suffix(from: size / 2)])
            let body = HTTPBodyStream(next: { parts.withLock { $0.isEmpty ? nil : Data($0.removeFirst()) } }, endsFramed: true)
            return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600"]), body)
        }
        func get(_ cache: HTTPCache, _ path: String) async throws -> (HTTPCacheOutcome, Data) {
            let answer = try await cache.streamResponse(to: inner.request(path)) { request, body in
                guard cache === outer else { return try await origin(request, body) }
                let answer = try await inner.cache.streamResponse(to: request, body: body, send: origin)
                return (answer.response, answer.body)
            }
            return (answer.outcome, try await answer.body.collect())
        }
        // From a body file of the inner cache.
        #expect(try await get(inner.cache, "/filed") == (.network, Fixture.content("/filed", size: size)))
        #expect(inner.bodyFileKey("/filed") != nil)
        let filed = try await inner.cache.streamResponse(to: inner.request("/filed"), send: origin)
        #expect(filed.outcome == .cache && filed.body.endsFramed, "a body file's reader is not framed")
        _ = try await filed.body.collect()
        #expect(try await get(outer, "/filed") == (.network, Fixture.content("/filed", size: size)))
        #expect(try await get(outer, "/filed") == (.cache, Fixture.content("/filed", size: size)), "a body file's reader is not framed")
        // From the origin, through the inner cache's storing wrapper.
        #expect(try await get(outer, "/passed") == (.network, Fixture.content("/passed", size: size)))
        #expect(try await get(outer, "/passed") == (.cache, Fixture.content("/passed", size: size)), "the storing wrapper is not framed")
        #expect(trips.withLock { $0 } == 2)
        try inner.cache.close()
    }

    /// A `204` has no content by definition: it ends with its head, framed without a
    /// `Content-Length` or chunks, and one that may be stored is.
    @Test func aNoContentResponseIsStoredWithoutALength() async throws {
        let fixture = try Fixture(diskCapacity: 64 << 20)
        let trips = LockedValue(0)
        func get() async throws -> StreamedHTTPResponse {
            let answer = try await fixture.cache.streamResponse(to: fixture.request("/empty")) { _, _ in
                trips.withLock { $0 += 1 }
                return (HTTPResponse(status: .noContent, headerFields: [.cacheControl: "max-age=600"]), HTTPBodyStream(next: { nil }))
            }
            #expect(try await answer.body.collect().isEmpty)
            return answer
        }
        #expect(try await get().outcome == .network)
        let hit = try await get()
        #expect(hit.outcome == .cache)
        #expect(hit.response.status == .noContent)
        #expect(trips.withLock { $0 } == 1)
        try fixture.cache.close()
    }

    /// A store the disk cache refuses (here a URL longer than any disk cache key) leaves no
    /// body file behind: the one adopted for it is removed with the variant.
    @Test func aStoreTheDiskRefusesLeavesNoBodyFile() async throws {
        let fixture = try Fixture(diskCapacity: 64 << 20)
        let path = "/" + String(repeating: "long-", count: 1_000)
        let size = 3 << 20
        let (miss, body) = try await fixture.get(path, size: size)
        #expect(miss.outcome == .network)
        #expect(body == Fixture.content(path, size: size))
        #expect(fixture.bodyFileKey(path) == nil)
        #expect(fixture.disk.totalSize(ofKeysWithPrefix: HTTPCache.bodyFileKeyPrefix) == 0, "an orphan body file was kept")
        #expect(try fixture.incomingFiles().isEmpty)
        try fixture.cache.close()
    }

    /// Only a `POST` response that says it is the target's current representation may be
    /// stored, so only such a response's body is kept while it streams.
    @Test func onlyARepresentationOfThePostTargetIsKept() throws {
        let cache = try HTTPCache(diskCapacity: 0)
        let post = HTTPRequest(method: .post, scheme: "https", authority: "origin.test", path: "/form")
        let key = try #require(PrimaryCacheKey(post))
        func response(_ status: HTTPResponse.Status, _ fields: HTTPFields) -> HTTPResponse { HTTPResponse(status: status, headerFields: fields) }
        let representation: HTTPFields = [.contentLocation: "/form", .cacheControl: "max-age=60"]
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func representationToStore(_ response: HTTPResponse, post: HTTPRequest, key: PrimaryCacheKey) -> StoredResponse? {
            cache.representationToStore(response, post: post, key: key, requestTime: now, responseTime: now)?.stored
        }
        #expect(representationToStore(response(.ok, representation), post: post, key: key)?.body.isEmpty == true)
        // A representation that the GET may not store is not kept either.
        #expect(representationToStore(response(.ok, [.contentLocation: "/form", .cacheControl: "max-age=60, no-store"]), post: post, key: key) == nil)
        #expect(representationToStore(response(.ok, [.contentLocation: "/form"]), post: post, key: key) == nil)
        #expect(representationToStore(response(.ok, [.cacheControl: "max-age=60"]), post: post, key: key) == nil)
        #expect(representationToStore(response(.ok, [.contentLocation: "/other", .cacheControl: "max-age=60"]), post: post, key: key) == nil)
        #expect(representationToStore(response(.created, representation), post: post, key: key) == nil)
        var put = post
        put.method = .put
        #expect(representationToStore(response(.ok, representation), post: put, key: key) == nil)
    }
}
