/// One implementation in a benchmark case: Stash or a peer.
///
/// `run` performs one repetition of the case's workload and returns how many operations it
/// did; only `run` is timed. `prepare`, when given, runs untimed before every repetition (to
/// start from a fresh cache, say). The harness repeats `run` until a sample lasts at least
/// ``BenchContext/minimumSampleSeconds``.
struct Contender {
    var name: String
    var prepare: () throws -> Void
    var run: () throws -> Int

    init(_ name: String, prepare: @escaping () throws -> Void = {}, run: @escaping () throws -> Int) {
        self.name = name
        self.prepare = prepare
        self.run = run
    }
}

/// ``Contender`` for workloads that `await` (network, actors).
struct AsyncContender {
    var name: String
    var prepare: () async throws -> Void
    var run: () async throws -> Int

    init(_ name: String, prepare: @escaping () async throws -> Void = {}, run: @escaping () async throws -> Int) {
        self.name = name
        self.prepare = prepare
        self.run = run
    }
}
