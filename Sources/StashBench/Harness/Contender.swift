/// One implementation in a benchmark case: Stash or a peer.
///
/// `run` performs one repetition of the case's workload and returns how many operations it
/// did; only `run` is timed. `prepare`, when given, runs untimed before every repetition (to
/// start from a fresh cache, say), and `drain` untimed after every sample (to finish what
/// the workload left to a background flush, which would otherwise land in the next
/// contender's sample). The harness repeats `run` until a sample lasts at least
/// ``BenchContext/minimumSampleSeconds``. `cpu` says whose CPU time `run` and `drain` cost
/// (the bench's own process unless told otherwise).
struct Contender {
    var name: String
    var prepare: () throws -> Void
    var run: () throws -> Int
    var drain: () async throws -> Void
    var cpu: WorkingProcesses? = .thisProcess

    init(
        _ name: String, prepare: @escaping () throws -> Void = {}, drain: @escaping () async throws -> Void = {},
        run: @escaping () throws -> Int
    ) {
        self.name = name
        self.prepare = prepare
        self.drain = drain
        self.run = run
    }
}

/// What one repetition did: its operations and, when the workload timed itself (a load
/// generator reports its own run's length, without its start-up), how long they took, and
/// that load generator's run, whose latency the case reports (``LatencyFigures``, from the
/// runs of the samples kept only).
struct Measurement {
    var ops: Int
    var seconds: Double?
    var load: LoadGenerator.Run?

    init(ops: Int, seconds: Double? = nil) {
        self.ops = ops
        self.seconds = seconds
    }

    /// A load generator's run: its requests, its own length, and its latency.
    init(load run: LoadGenerator.Run) {
        self.init(ops: run.requests, seconds: run.seconds)
        load = run
    }
}

/// ``Contender`` for workloads that `await` (network, actors). `cpu` is `nil` when whose
/// CPU time the work costs cannot be told apart from the client's (a server in the bench).
struct AsyncContender {
    var name: String
    var prepare: () async throws -> Void
    var run: () async throws -> Measurement
    var drain: () async throws -> Void
    var cpu: WorkingProcesses? = .thisProcess

    init(
        _ name: String, prepare: @escaping () async throws -> Void = {}, drain: @escaping () async throws -> Void = {},
        run: @escaping () async throws -> Int
    ) {
        self.init(name, prepare: prepare, drain: drain, measured: { Measurement(ops: try await run(), seconds: nil) })
    }

    /// A synchronous contender's workload, awaited: what one case interleaves with async peers.
    init(_ contender: Contender) {
        self.init(contender.name, prepare: contender.prepare, drain: contender.drain, run: contender.run)
        cpu = contender.cpu
    }

    /// A contender whose workload reports how long its operations took (``Measurement/seconds``),
    /// which the harness takes instead of its own clock.
    init(
        _ name: String, prepare: @escaping () async throws -> Void = {}, drain: @escaping () async throws -> Void = {},
        measured: @escaping () async throws -> Measurement
    ) {
        self.name = name
        self.prepare = prepare
        self.drain = drain
        self.run = measured
    }

    /// This contender with its CPU time counted on `cpu`.
    func counting(_ cpu: WorkingProcesses?) -> AsyncContender {
        var contender = self
        contender.cpu = cpu
        return contender
    }
}
