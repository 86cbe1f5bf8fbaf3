#!/usr/bin/env bash
# Runs stash-bench (release, every suite or the ones named) on this machine several times
# (STASH_BENCH_RUNS, 3 unless set) and regenerates docs/BENCHMARKS.md, one chart per suite
# (docs/benchmarks/*.svg) and the README's benchmark table from its JSON output, so that every
# figure in the docs comes from these runs. Run it with nothing else building on the machine,
# from a clean checkout: the results name the commit they measured, so a tree with changes is
# refused. PostgreSQL (the `shared` suite) is started for the run with Scripts/postgres.sh;
# nginx, Varnish and wrk are used when installed (apt-get install nginx-light varnish wrk), MMKV
# when STASH_BENCH_MMKV names the driver that Scripts/build-mmkv-peer.sh builds, and the page
# says which peers ran.
#
# usage: Scripts/benchmarks.sh [stash-bench arguments…]   e.g. Scripts/benchmarks.sh memory disk
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "benchmarks: the tree has uncommitted changes; commit them first, so that the results name what they measured" >&2
    exit 1
fi
runs=${STASH_BENCH_RUNS:-3}

swift build -c release --product stash-bench
swift build -c release --product stash          # the proxy peer runs as `stash http-proxy`

results=docs/benchmarks/results.jsonl
postgres_dir=$(mktemp -d /tmp/stash-bench-postgres.XXXXXX)
chmod 755 "$postgres_dir"
trap 'Scripts/postgres.sh stop "$postgres_dir/server" >/dev/null 2>&1 || true; rm -rf "$postgres_dir"' EXIT
if [ -z "${STASH_POSTGRES_URL:-}" ] && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    STASH_POSTGRES_URL=$(Scripts/postgres.sh start "$postgres_dir/server")
    export STASH_POSTGRES_URL
fi

machine=$(python3 - <<'PY'
import json, os, platform, re, shutil, subprocess, tempfile

def first_line(*command):
    if not shutil.which(command[0]):
        return "not installed"
    done = subprocess.run(command, capture_output=True, text=True)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[0] if lines else "unknown"

cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.machine())
layout = {}
for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
    key, _, value = line.partition(":")
    if key.strip() in ("Socket(s)", "Core(s) per socket", "Thread(s) per core", "NUMA node(s)"):
        layout[key.strip()] = value.strip()
filesystem = subprocess.run(["stat", "-f", "-c", "%T", tempfile.gettempdir()], capture_output=True, text=True).stdout.strip()
postgres = sorted(p for p in os.listdir("/usr/lib/postgresql")) if os.path.isdir("/usr/lib/postgresql") else []
print(json.dumps({"machine": {
    "commit": subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip(),
    "CPU": cpu, "cores": os.cpu_count(), "CPU layout": ", ".join(f"{k} {v}" for k, v in layout.items()) or "unknown",
    "memory": f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB",
    "system": f"{platform.system()} {platform.release()}", "scratch filesystem": f"{filesystem} ({tempfile.gettempdir()})",
    "Swift": first_line("swift", "--version"),
    "nginx": first_line("nginx", "-v"), "Varnish": first_line("varnishd", "-V"), "wrk": first_line("wrk", "-v"),
    "PostgreSQL": f"PostgreSQL {postgres[-1]}" if postgres else "not installed",
}}))
PY
)
{
    echo "$machine"
    for run in $(seq 1 "$runs"); do
        echo "{\"run\": $run}"
        .build/release/stash-bench --json "$@"
    done
} > "$results.new"
mv "$results.new" "$results"
python3 Scripts/render-benchmarks.py "$results" docs/benchmarks/method.md README.md > docs/BENCHMARKS.md
echo "benchmarks: wrote $results, docs/BENCHMARKS.md, docs/benchmarks/*.svg and the README's table"
