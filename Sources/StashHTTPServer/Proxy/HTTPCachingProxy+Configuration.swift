import Foundation

extension HTTPCachingProxy {
    /// The proxy's limits (how long clients and the upstream may take, how many clients may
    /// be connected at once, how large a request body may be) and the host names it serves.
    ///
    /// ```swift
    /// var configuration = HTTPCachingProxy.Configuration()
    /// configuration.headerTimeout = .seconds(10)
    /// configuration.idleTimeout = .seconds(30)
    /// configuration.upstreamReadTimeout = .seconds(15)
    /// configuration.sendTimeout = .seconds(20)
    /// configuration.maximumConnections = 512
    /// configuration.maximumRequestBodySize = 8 << 20
    /// configuration.virtualHosts = ["example.com", "www.example.com"]
    /// let proxy = HTTPCachingProxy(upstream: origin, cache: cache, configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// How long a client has to send a whole request head once its first byte arrived;
        /// the connection is closed (no response) when it takes longer. Default 30 s.
        public var headerTimeout: Duration
        /// How long a connection may stay without a request: before the first one, and
        /// between a response and the next request on a keep-alive connection, and between
        /// two pieces of a request body. The connection is then closed. HummingbirdCore's
        /// idle timeout. Default 75 s (nginx's `keepalive_timeout`).
        public var idleTimeout: Duration
        /// How long the upstream may go without sending a byte while the proxy waits for its
        /// response (head or body). Past it the exchange is cut and the client gets `504
        /// Gateway Timeout` (the proxy sends nothing before the upstream body is whole, so a
        /// cut never leaves a client with a truncated answer). Only for the transport the proxy creates; a transport passed to
        /// ``HTTPCachingProxy/init(upstream:cache:configuration:transport:)`` keeps its own.
        /// Default 60 s (nginx's `proxy_read_timeout`).
        public var upstreamReadTimeout: Duration
        /// How long a client may leave the proxy unable to send: when the client stops reading
        /// and more than NIO's write buffer (64 KiB) is waiting for it, the connection is
        /// closed unless the client has read enough to take more within this time. A slow but
        /// steady reader is never cut. The limit frees what a stuck response holds (for a
        /// miss: its upstream connection, its incoming file, and the identical requests waiting
        /// for it). nginx's `send_timeout`. Default 60 s.
        public var sendTimeout: Duration
        /// The most client connections open at once; `nil` for no limit. A connection past
        /// the limit is accepted and closed at once, before any byte of it is read. Default 1024.
        public var maximumConnections: Int?
        /// The largest request body passed on, in bytes. A request announcing a longer one
        /// (`Content-Length`) is answered `413 Content Too Large` before a byte of it is read;
        /// a chunked one is counted as it arrives and cut (`413`, or the connection closed
        /// once the upstream's answer has begun) when it goes past. The connection is closed
        /// after a `413`. Bodies are passed on as they arrive, never collected whole.
        /// nginx's `client_max_body_size`. Default 64 MiB.
        public var maximumRequestBodySize: Int
        /// How long a client may go without sending a byte of a request body it started; the
        /// connection is then closed. nginx's `client_body_timeout`. Default 30 s.
        public var requestBodyTimeout: Duration
        /// The host names the upstream serves, when it serves several (virtual hosts); empty
        /// by default. Empty, responses are cached under the upstream's own authority
        /// whatever `Host` a client sends (nginx's default key), and the upstream gets its own
        /// authority as `Host`. Not empty, a request's host name (from `Host`, or an
        /// absolute-form target) must be one of these (case-insensitive, any port) or it is
        /// answered `400`; responses are cached under that name, and it is the `Host` the
        /// upstream gets.
        public var virtualHosts: Set<String>

        /// Creates a configuration; every argument has the default documented on its property.
        public init(
            headerTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(75),
            upstreamReadTimeout: Duration = .seconds(60), sendTimeout: Duration = .seconds(60),
            maximumConnections: Int? = 1024, maximumRequestBodySize: Int = 64 << 20, requestBodyTimeout: Duration = .seconds(30),
            virtualHosts: Set<String> = []
        ) {
            self.headerTimeout = headerTimeout
            self.idleTimeout = idleTimeout
            self.upstreamReadTimeout = upstreamReadTimeout
            self.sendTimeout = sendTimeout
            self.maximumConnections = maximumConnections
            self.maximumRequestBodySize = maximumRequestBodySize
            self.requestBodyTimeout = requestBodyTimeout
            self.virtualHosts = virtualHosts
        }
    }
}
