#!/usr/bin/env bash
# Runs stash-bench (release, every suite or the ones named) on this machine and regenerates
# docs/BENCHMARKS.md and the README's benchmark table from its JSON output, so that every
# figure in the docs comes from one run. Run it with nothing else building on the machine. PostgreSQL (the `shared` suite) is
# started for the run with Scripts/postgres.sh; nginx, Varnish and wrk are used when installed
# (apt-get install nginx-light varnish wrk), and the page says which peers ran.
#
# usage: Scripts/benchmarks.sh [stash-bench arguments…]   e.g. Scripts/benchmarks.sh memory disk
set -euo pipefail
cd "$(dirname "$0")/.."

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
import json, os, platform, subprocess
cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.machine())
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
print(json.dumps({"machine": {
    "CPU": cpu, "cores": os.cpu_count(), "memory": f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB",
    "system": f"{platform.system()} {platform.release()}", "Swift": swift[0] if swift else "unknown",
}}))
PY
)
{
    echo "$machine"
    .build/release/stash-bench --json "$@"
} > "$results.new"
mv "$results.new" "$results"
python3 Scripts/render-benchmarks.py "$results" docs/benchmarks/method.md README.md > docs/BENCHMARKS.md
echo "benchmarks: wrote $results, docs/BENCHMARKS.md and the README's table"
