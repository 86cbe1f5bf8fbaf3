#!/usr/bin/env bash
# CPU time per cache hit: `stash http-proxy` against nginx `proxy_cache`, each in its own
# processes, in front of one nginx origin serving a 1 KB file, loaded by wrk alternately.
#
#   Scripts/proxy-cpu-per-hit.sh            build-free: uses .build/release/stash
#   STASH=/path/to/stash BEFORE=/path/to/older/stash Scripts/proxy-cpu-per-hit.sh
#
# Environment: CONN (connections, 500), DUR (seconds per wrk run, 8), ROUNDS (3), STASH
# (default .build/release/stash; build it with `swift build -c release --product stash`),
# BEFORE (a second stash binary measured in the same rounds, e.g. the build before a change),
# BROWSER=1 (each request carries the nine fields a browser sends besides Host, not Host alone).
# Needs nginx, wrk and perf (Debian: nginx-light, wrk, linux-perf). Ports 18711-18714 on
# 127.0.0.1.
#
# Each line: the server's CPU time per request (perf stat task-clock of its processes over
# the run, divided by wrk's request count), context switches per request, requests/s and
# wrk's p99. Both servers share the machine's cores with wrk, so requests/s move with the
# machine's load; the CPU per request moves much less.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
STASH=${STASH:-$root/.build/release/stash}
CONN=${CONN:-500}; DUR=${DUR:-8}; ROUNDS=${ROUNDS:-3}
for tool in nginx wrk perf; do
    command -v $tool >/dev/null || { echo "$tool is not installed" >&2; exit 1; }
done
[ -x "$STASH" ] || { echo "no stash binary at $STASH (swift build -c release --product stash)" >&2; exit 1; }

dir=$(mktemp -d /tmp/proxy-cpu.XXXX)
chmod 755 "$dir"; mkdir -p "$dir/www" "$dir/cache" "$dir/home" "$dir/home-before"
head -c 1024 /dev/zero | tr '\0' 'x' > "$dir/www/page"
cat > "$dir/origin.conf" <<EOF
daemon off; master_process off; worker_processes 1; pid $dir/origin.pid; error_log $dir/origin.err error;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:18711; location / { root $dir/www; add_header Cache-Control "max-age=36000"; } } }
EOF
cat > "$dir/proxy.conf" <<EOF
daemon off; master_process on; worker_processes auto; pid $dir/nginx.pid; error_log $dir/nginx.err error;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path $dir/b; proxy_temp_path $dir/p; fastcgi_temp_path $dir/f; uwsgi_temp_path $dir/u; scgi_temp_path $dir/s;
  proxy_cache_path $dir/cache levels=1:2 keys_zone=bench:16m max_size=256m inactive=1h;
  upstream origin { server 127.0.0.1:18711; keepalive 32; }
  server { listen 127.0.0.1:18712 backlog=4096; keepalive_requests 1000000;
    location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_cache bench; add_header Cache-Status \$upstream_cache_status; } } }
EOF

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
nginx -c "$dir/origin.conf" -p "$dir" -e "$dir/origin.err" & pids+=($!)
nginx -c "$dir/proxy.conf" -p "$dir" -e "$dir/nginx.err" & nginx_pid=$!; pids+=($nginx_pid)
HOME=$dir/home "$STASH" http-proxy --upstream http://127.0.0.1:18711 --listen 127.0.0.1:18713 --disk-capacity 0 > "$dir/stash.log" 2>&1 &
stash_pid=$!; pids+=($stash_pid)
if [ -n "${BEFORE:-}" ]; then
    HOME=$dir/home-before "$BEFORE" http-proxy --upstream http://127.0.0.1:18711 --listen 127.0.0.1:18714 --disk-capacity 0 > "$dir/before.log" 2>&1 &
    before_pid=$!; pids+=($before_pid)
fi
sleep 2
# The first request of each is a miss; then every request is a hit.
for port in 18712 18713 ${BEFORE:+18714}; do curl -s -o /dev/null "http://127.0.0.1:$port/page"; done

fields=()
if [ -n "${BROWSER:-}" ]; then
    for field in "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0" \
        "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" "Accept-Language: en-GB,en;q=0.5" \
        "Accept-Encoding: gzip, deflate, br, zstd" "Referer: http://127.0.0.1/" "Upgrade-Insecure-Requests: 1" \
        "Sec-Fetch-Dest: document" "Sec-Fetch-Mode: navigate" "Sec-Fetch-Site: same-origin"; do
        fields+=(-H "$field")
    done
fi

run() { # name port pid...
    local name=$1 port=$2; shift 2
    local list; list=$(echo "$@" | tr ' ' ',')
    perf stat -x, -e task-clock,context-switches -p "$list" -o "$dir/perf.$name" -- sleep $((DUR + 1)) &
    local perf_pid=$!
    local out; out=$(wrk -t2 -c"$CONN" -d"${DUR}"s --latency "${fields[@]}" "http://127.0.0.1:$port/page")
    wait $perf_pid
    local requests; requests=$(echo "$out" | awk '/requests in/ {print $1}')
    local clock; clock=$(awk -F, '/task-clock/ {print $1}' "$dir/perf.$name")
    local switches; switches=$(awk -F, '/context-switches/ {print $1}' "$dir/perf.$name")
    printf '%-6s cpu/request %6.2f us  switches/request %.3f  requests/s %s  p99 %s  load %s\n' "$name" \
        "$(echo "$clock * 1000 / $requests" | bc -l)" "$(echo "$switches / $requests" | bc -l)" \
        "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" "$(echo "$out" | awk '$1=="99%" {print $2}')" \
        "$(cut -d' ' -f1 /proc/loadavg)"
}
for _ in $(seq "$ROUNDS"); do
    # shellcheck disable=SC2046
    run nginx 18712 $(pgrep -P $nginx_pid)
    run stash 18713 $stash_pid
    if [ -n "${BEFORE:-}" ]; then run before 18714 "$before_pid"; fi
done
