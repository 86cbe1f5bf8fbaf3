import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import StashHTTP

/// The fuzz target of what an origin sends: bytes read as the response to a `GET` by NIO's
/// HTTP/1 decoder (as AsyncHTTPClient reads them upstream), taken into the cache by its
/// storage rules (``StashHTTP/HTTPFuzzing/originResponse(_:body:)``), and every response the
/// cache would then serve written by NIO's encoder (as the proxy writes it to clients) and
/// read back. A finding (the process stops, so libFuzzer keeps the input):
/// - a stored record that does not read back as written;
/// - a served response whose bytes read back as anything but one response with the same
///   status and fields: a byte of the origin's that split the answer (response splitting),
///   or a field the encoder could not write as it is.
///
/// ```swift
/// @_cdecl("LLVMFuzzerTestOneInput")
/// func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
///     OriginResponseFuzzing.run(UnsafeRawBufferPointer(start: data, count: count))
///     return 0
/// }
/// ```
package enum OriginResponseFuzzing {
    /// Runs `bytes` through, stopping the process on a finding.
    package static func run(_ bytes: UnsafeRawBufferPointer) {
        if let finding = finding(in: bytes) { fatalError("an origin's response: \(finding)") }
    }

    /// The first finding for `bytes`, or `nil`.
    package static func finding(in bytes: UnsafeRawBufferPointer) -> String? {
        guard let (response, body) = decoded(ByteBuffer(bytes: bytes)) else { return nil }
        guard let served = HTTPFuzzing.originResponse(response, body: body) else {
            return "a stored record did not read back as written"
        }
        for answer in served {
            if let finding = roundTrip(answer) { return finding }
        }
        return nil
    }

    /// The response NIO's decoder reads from `bytes`, with its fields as the transport
    /// takes them, and its body, when it reads one whole.
    static func decoded(_ bytes: ByteBuffer) -> (HTTPResponse, Data)? {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        guard (try? channel.pipeline.syncOperations.addHandlers([HTTPRequestEncoder(), ByteToMessageHandler(HTTPResponseDecoder())])) != nil,
              (try? channel.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/fuzz")))) != nil,
              (try? channel.writeOutbound(HTTPClientRequestPart.end(nil))) != nil else { return nil }
        while (try? channel.readOutbound(as: ByteBuffer.self)) != nil {}
        guard (try? channel.writeInbound(bytes)) != nil else { return nil }
        channel.pipeline.syncOperations.fireChannelInactive()
        var head: HTTPResponseHead?
        var body = Data()
        while let part = try? channel.readInbound(as: HTTPClientResponsePart.self) {
            switch part {
            case .head(let value) where value.status.code >= 200: head = value
            case .head: continue
            case .body(let buffer): if head != nil { body.append(contentsOf: buffer.readableBytesView) }
            case .end:
                guard let head else { continue }
                return (response(from: head), body)
            }
        }
        return nil
    }

    /// `head` as `AsyncHTTPClientTransport` hands it on: every field line whose name is a
    /// valid field name, in order.
    static func response(from head: HTTPResponseHead) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in head.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return HTTPResponse(status: .init(code: Int(head.status.code), reasonPhrase: head.status.reasonPhrase), headerFields: fields)
    }

    /// Writes `answer` with NIO's response encoder and reads it back with its decoder.
    static func roundTrip(_ answer: HTTPResponse) -> String? {
        var headers = HTTPHeaders()
        for field in answer.headerFields { headers.add(name: field.name.rawName, value: field.value) }
        headers.replaceOrAdd(name: "content-length", value: "0")
        let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: answer.status.code, reasonPhrase: answer.status.reasonPhrase), headers: headers)
        let writer = EmbeddedChannel(handler: HTTPResponseEncoder())
        defer { _ = try? writer.finish() }
        guard (try? writer.writeOutbound(HTTPServerResponsePart.head(head))) != nil,
              (try? writer.writeOutbound(HTTPServerResponsePart.end(nil))) != nil else { return "the encoder refused \(head)" }
        var wire = ByteBuffer()
        while var part = try? writer.readOutbound(as: ByteBuffer.self) { wire.writeBuffer(&part) }
        let text = String(decoding: wire.readableBytesView, as: UTF8.self)
        let reader = EmbeddedChannel()
        defer { _ = try? reader.finish() }
        guard (try? reader.pipeline.syncOperations.addHandlers([HTTPRequestEncoder(), ByteToMessageHandler(HTTPResponseDecoder())])) != nil,
              (try? reader.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))) != nil
        else { return nil }
        guard (try? reader.writeInbound(wire)) != nil else { return "the answer written does not read back: \(text.debugDescription)" }
        var heads: [HTTPResponseHead] = []
        while let part = try? reader.readInbound(as: HTTPClientResponsePart.self) {
            if case .head(let read) = part { heads.append(read) }
        }
        guard heads.count == 1, let read = heads.first else { return "\(heads.count) responses in one answer: \(text.debugDescription)" }
        guard read.status.code == head.status.code, Array(read.headers) .map({ "\($0.name.lowercased()):\($0.value)" }) == Array(head.headers).map({ "\($0.name.lowercased()):\($0.value)" }) else {
            return "the answer reads back otherwise: \(text.debugDescription)"
        }
        return nil
    }

    /// Responses the target starts from: plain, chunked, with validators, `Vary`, cookies.
    package static let seeds: [String] = [
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nCache-Control: public, s-maxage=60\r\nETag: \"v1\"\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 404 Not Found\r\nLast-Modified: Mon, 13 Nov 2023 22:13:20 GMT\r\nVary: Accept-Language\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nCache-Control: max-age=60, no-cache=\"Set-Cookie\"\r\nSet-Cookie: a=1\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nExpires: Thu, 01 Jan 2037 00:00:00 GMT\r\nLocation: /a\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 301 Moved\r\nCache-Control: private, max-age=9\r\nLocation: http://origin.test/b\r\nContent-Length: 0\r\n\r\n",
    ]
}
