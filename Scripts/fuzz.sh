#!/usr/bin/env bash
# Fuzzes every parser of untrusted bytes with libFuzzer (Swift's -sanitize=fuzzer,address).
#
#   Scripts/fuzz.sh [seconds] [target...]     default: 60 s each, every target of Stash's own
#
# Peer targets (`stash-fuzz list` marks them `peer`: Foundation's PropertyListSerialization,
# fuzzed for comparison) run only when named; their crashes are the peer's bugs, kept in
# Fuzz/PeerFindings/<target>/ (never replayed: they crash the process by design).
#
# Each target starts from its committed seed corpus (Fuzz/Corpus/<target>/) plus the inputs
# of past crashes (Fuzz/Regressions/<target>/), in a scratch copy, so the committed corpus
# only changes when you copy inputs back on purpose. A crash stops the run with its input
# saved under .build-fuzz/crashes/<target>/; keep it as a regression: copy it into
# Fuzz/Regressions/<target>/ (replayed by `swift test`) and fix the parser.
# Exits 0 when no target crashed, 1 when one did, 3 when libFuzzer is not available.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
scratch=${STASH_FUZZ_SCRATCH:-.build-fuzz}
mkdir -p "$scratch"

# The coverage is named explicitly: with `-sanitize=fuzzer -sanitize=address` in that order the
# Swift 6.3 driver drops the coverage instrumentation of every file of a multi-file module
# (libFuzzer then runs blind: "no interesting inputs were found"), and SwiftPM does not keep
# the order the flags were given in. Checked below.
sanitizers=(--sanitize address --sanitize fuzzer
    -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp)
echo "fuzz: building with AddressSanitizer and libFuzzer (first time: several minutes)"
if ! swift build --scratch-path "$scratch" --product StashFuzz \
        "${sanitizers[@]}" -Xswiftc -DSTASH_FUZZ >"$scratch/build.log" 2>&1; then
    if grep -q -i "fuzzer" "$scratch/build.log" && grep -q -i -E "unsupported|not found|cannot find" "$scratch/build.log"; then
        echo "fuzz: libFuzzer is not available with this toolchain; skipped" >&2
        exit 3
    fi
    tail -n 30 "$scratch/build.log" >&2
    exit 1
fi
bin=$(swift build --scratch-path "$scratch" --product StashFuzz "${sanitizers[@]}" -Xswiftc -DSTASH_FUZZ --show-bin-path)
binary=$bin/StashFuzz
command -v readelf >/dev/null 2>&1 || { echo "fuzz: readelf (Debian's binutils) is needed to check the instrumentation" >&2; exit 1; }
# Any object file of a multi-file module shows it: the first of StashCore's. (A glob, not
# `ls | head`: under pipefail, head closing the pipe early ends ls with SIGPIPE, and the script.)
objects=("$bin"/StashCore.build/*.swift.o)
sections=$(readelf -S "${objects[0]}" 2>/dev/null || true)
if ! grep -q sancov <<<"$sections"; then
    echo "fuzz: the Swift code was built without coverage instrumentation; fuzzing would be blind" >&2
    exit 1
fi

# The target list comes from a normal (unsanitized) build of the same executable.
swift build --product StashFuzz >/dev/null
lister=$(swift build --show-bin-path)/StashFuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <("$lister" list | awk -F '\t' '$3 != "peer" { print $1 }')
fi

failed=()
for target in "${targets[@]}"; do
    work=$(mktemp -d)
    cp -r "Fuzz/Corpus/$target/." "$work/" 2>/dev/null || true
    cp -r "Fuzz/Regressions/$target/." "$work/" 2>/dev/null || true
    crashes="$scratch/crashes/$target"
    mkdir -p "$crashes"
    echo "fuzz: $target for ${seconds} s"
    # Leak detection is off: on Linux, LeakSanitizer reports the storage of Swift's lazily
    # initialised globals (`static let`) as leaked at exit, which would fail every target. A
    # run fails on a crash, a trap, a memory error found by AddressSanitizer, or a timeout.
    if ASAN_OPTIONS="detect_leaks=0" STASH_FUZZ_TARGET="$target" "$binary" "$work" -detect_leaks=0 \
            -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
            -artifact_prefix="$crashes/" -print_final_stats=1 >"$scratch/$target.log" 2>&1; then
        { grep -E "stat::number_of_executed_units|stat::new_units_added" "$scratch/$target.log" || true; } | tr '\n' ' ' | sed 's/^/fuzz:   /'
        echo
    else
        echo "fuzz: $target FAILED; input saved in $crashes/" >&2
        grep -m 12 -E "ERROR|SUMMARY|Fatal error|crash-|timeout-|oom-" "$scratch/$target.log" >&2 || true
        failed+=("$target")
    fi
    rm -rf "$work"
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} targets, no crash"
