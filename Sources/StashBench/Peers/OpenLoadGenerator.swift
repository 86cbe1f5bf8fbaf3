import Foundation
import StashToolSupport

/// An open-loop load generator (wrk2's method): requests are due on a fixed schedule, `rate`
/// a second spread evenly over the run, whatever the server answers; each goes out on the
/// first idle connection, and its latency runs from the moment it was due, not from the
/// moment it was sent. A server that stalls is charged for every request that waited behind
/// the stall (no coordinated omission), and every server is offered the same load, so their
/// latencies compare at equal load; wrk's closed loop, by contrast, measures throughput.
///
/// It runs as a process of its own (this executable again, told by ``variable``), pinned to
/// the load generator's CPU like wrk (``CPUPinning``), with one thread polling every
/// connection (it polls without sleeping when the next request is due within 2 ms, so a
/// request goes out within microseconds of its time: that CPU is the generator's alone),
/// HTTP/1.1 keep-alive, responses framed by `Content-Length`.
enum OpenLoadGenerator {
    /// The environment variable that makes this executable generate load:
    /// `port|connections|rate|seconds|workload|seed`.
    static let variable = "STASH_BENCH_OPEN_LOAD"

    /// What the requests ask for.
    enum Workload: String {
        /// One URL (`/1k/1`) with wrk's minimal head.
        case hot
        /// Many URLs with a browser's fields: 90% of requests for 50,000 1 KB bodies and 8%
        /// for 2,000 100 KB bodies, each set by Zipf popularity (s = 1), and 2% for URLs never
        /// asked before (misses that reach the origin). The long tail of the large bodies
        /// outgrows a memory tier and reaches a disk tier.
        case mixed
    }

    /// Loads 127.0.0.1:`port` at `rate` requests a second for `seconds` over `connections`
    /// connections, in a child process; answers its run (latency at p50, p99 and p99.9).
    /// `rate` 0 keeps every connection busy instead (a closed loop): the run's requests over
    /// its seconds are then the server's capacity for the workload, as this client sees it.
    static func run(port: Int, connections: Int, rate: Int, seconds: Int, workload: Workload, seed: UInt64) throws -> LoadGenerator.Run {
        let child = try BenchExecutable.runChild(
            [], variable: variable, value: "\(port)|\(connections)|\(rate)|\(seconds)|\(workload.rawValue)|\(seed)", pinnedTo: \.load
        )
        guard let fields = child.figures(after: "open-load"), fields.count == 8 else {
            throw BenchError("open-loop generator failed (status \(child.status)): \(child.output)")
        }
        var run = LoadGenerator.Run(requests: Int(fields[0]), errors: Int(fields[1]) + Int(fields[2]), p99Milliseconds: fields[5])
        run.seconds = fields[3]
        run.p50Milliseconds = fields[4]
        run.p999Milliseconds = fields[6]
        return run
    }

    /// The child's side, when ``variable`` is set: runs the load and prints
    /// `open-load <completed> <errors> <unfinished> <seconds> <p50 ms> <p99 ms> <p99.9 ms> <max ms>`.
    /// Returns whether it ran.
    static func runIfAsked() throws -> Bool {
        guard let spec = ProcessInfo.processInfo.environment[variable] else { return false }
        let parts = spec.split(separator: "|").map(String.init)
        guard parts.count == 6, let port = Int(parts[0]), let connections = Int(parts[1]), connections > 0,
              let rate = Int(parts[2]), rate >= 0, let seconds = Int(parts[3]), seconds > 0,
              let workload = Workload(rawValue: parts[4]), let seed = UInt64(parts[5])
        else { throw BenchError("bad \(variable): \(spec)") }
        var requests = RequestMaker(port: port, workload: workload, seed: seed)
        let result = try OpenLoop(port: port, connections: connections).run(rate: rate, seconds: seconds) { requests.next() }
        let sorted = result.latencies.sorted()
        func quantile(_ q: Double) -> Double {
            sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]) / 1e6
        }
        print("open-load \(sorted.count) \(result.errors) \(result.unfinished) \(result.seconds) \(quantile(0.5)) \(quantile(0.99)) \(quantile(0.999)) \(quantile(1))")
        return true
    }
}

/// The request heads of a workload, in a seeded order.
private struct RequestMaker {
    let port: Int
    let workload: OpenLoadGenerator.Workload
    private var random: SplitMix
    private var misses = 0
    private let smallPopularity: [Double]
    private let largePopularity: [Double]

    init(port: Int, workload: OpenLoadGenerator.Workload, seed: UInt64) {
        self.port = port
        self.workload = workload
        random = SplitMix(seed: seed)
        smallPopularity = workload == .mixed ? Self.zipf(50_000) : []
        largePopularity = workload == .mixed ? Self.zipf(2_000) : []
    }

    /// The cumulative Zipf distribution (s = 1) over `count` ranks.
    private static func zipf(_ count: Int) -> [Double] {
        var total = 0.0
        var cumulative = (1...count).map { rank -> Double in
            total += 1 / Double(rank)
            return total
        }
        for index in cumulative.indices { cumulative[index] /= total }
        return cumulative
    }

    private mutating func rank(_ cumulative: [Double]) -> Int {
        let u = random.unit()
        var low = 0, high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < u { low = middle + 1 } else { high = middle }
        }
        return low
    }

    mutating func next() -> [UInt8] {
        switch workload {
        case .hot:
            return Array("GET /1k/1 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        case .mixed:
            let draw = random.unit()
            let path: String
            if draw < 0.90 {
                path = "/1k/\(rank(smallPopularity))"
            } else if draw < 0.98 {
                path = "/100k/\(rank(largePopularity))"
            } else {
                misses += 1
                path = "/1k/miss-\(random.next() % 1_000_000_000)-\(misses)"
            }
            return Array((
                "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                    + "User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1\r\n"
                    + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
                    + "Accept-Language: en-GB,en;q=0.9\r\nAccept-Encoding: gzip, deflate, br\r\n"
                    + "Cookie: session=7f3a9c; theme=dark\r\nConnection: keep-alive\r\n\r\n"
            ).utf8)
        }
    }
}

/// A seeded generator (SplitMix64).
private struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A number in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// The loop of ``OpenLoadGenerator``: connections, the schedule, and each response's latency.
private struct OpenLoop {
    struct Result {
        /// Each completed request's latency from the moment it was due, in nanoseconds.
        var latencies: [UInt64] = []
        var errors = 0
        /// Requests due but not answered when the run and its grace period ended.
        var unfinished = 0
        var seconds = 0.0
    }

    private struct Connection {
        var fd: Int32 = -1
        /// When the request in flight was due, or `nil` when idle.
        var due: UInt64?
        var outgoing: [UInt8] = []
        var sent = 0
        var incoming: [UInt8] = []
        /// The whole response's length, once its head was read.
        var expected: Int?
        var status = 0
    }

    let port: Int
    let connections: Int

    init(port: Int, connections: Int) {
        self.port = port
        self.connections = connections
    }

    private func openConnection() throws -> Int32 {
        let fd = LoopbackSocket.open()
        guard fd >= 0 else { throw BenchError("socket: errno \(errno)") }
        guard LoopbackSocket.connect(fd, port: port) else {
            close(fd)
            throw BenchError("connect to port \(port): errno \(errno)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func run(rate: Int, seconds: Int, request: () -> [UInt8]) throws -> Result {
        var pool = try (0..<connections).map { _ in Connection(fd: try openConnection()) }
        var result = Result()
        // `rate` 0: a closed loop, every connection busy until the run ends (a capacity probe).
        let closed = rate == 0
        result.latencies.reserveCapacity(closed ? 1 << 20 : rate * seconds)
        let interval = closed ? 0 : 1e9 / Double(rate)
        let total = closed ? 0 : rate * seconds
        let start = Self.now()
        let grace: UInt64 = 5_000_000_000
        let end = start + UInt64(seconds) * 1_000_000_000
        var scheduled = 0
        var waiting: [UInt64] = []
        var waitingHead = 0
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        var descriptors = [pollfd](repeating: pollfd(), count: connections)
        while true {
            let now = Self.now()
            if closed, now < end {
                for index in pool.indices where pool[index].due == nil { waiting.append(now) }
            }
            while scheduled < total, start + UInt64(Double(scheduled) * interval) <= now {
                waiting.append(start + UInt64(Double(scheduled) * interval))
                scheduled += 1
            }
            // Due requests go out on idle connections, oldest first.
            for index in pool.indices where pool[index].due == nil && waitingHead < waiting.count {
                pool[index].due = waiting[waitingHead]
                waitingHead += 1
                pool[index].outgoing = request()
                pool[index].sent = 0
                flush(&pool[index])
            }
            if waitingHead > 4096, waitingHead * 2 > waiting.count {
                waiting.removeFirst(waitingHead)
                waitingHead = 0
            }
            let busy = pool.contains { $0.due != nil }
            if scheduled >= total, !closed || now >= end, waitingHead == waiting.count, !busy { break }
            if now > end + grace {
                result.unfinished = (waiting.count - waitingHead) + pool.filter { $0.due != nil }.count
                break
            }
            for index in pool.indices {
                var events = Int16(POLLIN)
                if pool[index].sent < pool[index].outgoing.count { events |= Int16(POLLOUT) }
                descriptors[index] = pollfd(fd: pool[index].fd, events: events, revents: 0)
            }
            // Sleeps in `poll` only while the next request is 2 ms or more away (its timeout
            // counts whole milliseconds); closer than that, polls without waiting.
            let nextDue = scheduled < total ? start + UInt64(Double(scheduled) * interval) : now + 10_000_000
            let wait = nextDue > now ? nextDue - now : 0
            let timeout = closed ? 10 : wait >= 2_000_000 ? Int32(wait / 1_000_000) - 1 : 0
            guard poll(&descriptors, nfds_t(pool.count), timeout) >= 0 || errno == EINTR else {
                throw BenchError("poll: errno \(errno)")
            }
            for index in pool.indices where descriptors[index].revents != 0 {
                if descriptors[index].revents & Int16(POLLOUT) != 0 { flush(&pool[index]) }
                guard descriptors[index].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 else { continue }
                try receive(&pool[index], into: &buffer, result: &result)
            }
        }
        result.seconds = Double(min(Self.now(), end) - start) / 1e9
        for connection in pool { close(connection.fd) }
        return result
    }

    private func flush(_ connection: inout Connection) {
        while connection.sent < connection.outgoing.count {
            let written = connection.outgoing[connection.sent...].withUnsafeBytes { LoopbackSocket.send(connection.fd, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            connection.sent += written
        }
    }

    /// Reads what arrived; completes the response in flight when it is whole, or fails it and
    /// reconnects when the connection ended or the response cannot be framed.
    private func receive(_ connection: inout Connection, into buffer: inout [UInt8], result: inout Result) throws {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                connection.incoming.append(contentsOf: buffer[..<count])
                continue
            }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
            // Closed or failed: the request in flight fails, and a new connection takes its place.
            if connection.due != nil { result.errors += 1 }
            close(connection.fd)
            connection = Connection(fd: try openConnection())
            return
        }
        guard let due = connection.due else { return }
        if connection.expected == nil, let head = Self.headEnd(connection.incoming) {
            guard let (status, length) = Self.frame(connection.incoming[..<head]) else {
                result.errors += 1
                close(connection.fd)
                connection = Connection(fd: try openConnection())
                return
            }
            connection.status = status
            connection.expected = head + length
        }
        if let expected = connection.expected, connection.incoming.count >= expected {
            if connection.status >= 400 { result.errors += 1 }
            result.latencies.append(Self.now() - due)
            connection.incoming.removeFirst(expected)
            connection.expected = nil
            connection.due = nil
        }
    }

    /// The index just past the `\r\n\r\n` that ends a head, if it arrived.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// The status and `Content-Length` of a response head; `nil` when it has no length.
    private static func frame(_ head: ArraySlice<UInt8>) -> (Int, Int)? {
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.split(separator: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else { return nil }
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length", let length = Int(parts[1].trimmingCharacters(in: .whitespaces)) {
                return (status, length)
            }
        }
        return nil
    }
}
