#!/usr/bin/env bash
# One large body through `stash http-proxy` and through nginx `proxy_cache`, both in front of
# one nginx serving a static file, alternately, with curl: misses (a new query each round),
# then hits. Prints each request's time to first byte, total time and speed, and each
# proxy's peak resident memory (VmHWM; Linux). Build the CLI first:
#
#   swift build -c release --product stash
#   Scripts/proxy-large-body.sh [SIZE_BYTES] [ROUNDS]     (default 200000000 and 3)
#
# Needs nginx and curl; uses 127.0.0.1:18601-18603 and a scratch folder it deletes.
set -euo pipefail
SIZE=${1:-200000000}
ROUNDS=${2:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STASH=${STASH:-$ROOT/.build/release/stash}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
B=$(mktemp -d /tmp/stash-large-body.XXXXXX)
chmod 755 "$B"   # nginx workers (nobody) read the origin's files
mkdir -p "$B/www" "$B/origin" "$B/cache" "$B/stash"
head -c "$SIZE" /dev/urandom > "$B/www/big.bin"
temp_paths() { echo "client_body_temp_path $1/body; proxy_temp_path $1/proxy; fastcgi_temp_path $1/f; uwsgi_temp_path $1/u; scgi_temp_path $1/s;"; }
cat > "$B/origin/nginx.conf" <<CONF
daemon off; master_process on; worker_processes 1; pid $B/origin/nginx.pid; error_log $B/origin/error.log error;
events { worker_connections 256; }
http { access_log off; $(temp_paths "$B/origin")
  server { listen 127.0.0.1:18601; root $B/www; location / { add_header Cache-Control "max-age=3600"; } } }
CONF
cat > "$B/cache/nginx.conf" <<CONF
daemon off; master_process on; worker_processes 1; pid $B/cache/nginx.pid; error_log $B/cache/error.log error;
events { worker_connections 256; }
http { access_log off; $(temp_paths "$B/cache")
  proxy_cache_path $B/cache/store levels=1:2 keys_zone=bench:16m max_size=64g inactive=1h;
  upstream origin { server 127.0.0.1:18601; keepalive 8; }
  server { listen 127.0.0.1:18602; location / { proxy_pass http://origin; proxy_http_version 1.1;
    proxy_set_header Connection ""; proxy_cache bench; add_header Cache-Status \$upstream_cache_status; } } }
CONF
"$NGINX" -c "$B/origin/nginx.conf" -p "$B/origin" -e "$B/origin/error.log" & ORIGIN=$!
"$NGINX" -c "$B/cache/nginx.conf" -p "$B/cache" -e "$B/cache/error.log" & CACHE=$!
"$STASH" http-proxy --listen 127.0.0.1:18603 --upstream http://127.0.0.1:18601 --root "$B/stash" \
    --disk-capacity $((SIZE * (ROUNDS + 1))) > "$B/stash.out" 2>&1 & PROXY=$!
cleanup() { kill "$PROXY" 2>/dev/null || true; kill -QUIT "$CACHE" "$ORIGIN" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$B"; }
trap cleanup EXIT
sleep 2
peak() { awk '/VmHWM/ {print $2 " kB"}' "/proc/$1/status"; }
worker() { pgrep -P "$1" | head -1; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); body $SIZE bytes"
echo "start: stash VmHWM $(peak $PROXY), nginx worker VmHWM $(peak "$(worker $CACHE)")"
for kind in miss hit; do
  for round in $(seq 1 "$ROUNDS"); do
    for peer in stash:18603 nginx:18602; do
      name=${peer%%:*}; port=${peer##*:}
      query=$round; [ $kind = hit ] && query=1
      read -r first total speed size < <(curl -s -o /dev/null -D "$B/head.txt" \
        -w "%{time_starttransfer} %{time_total} %{speed_download} %{size_download}\n" "http://127.0.0.1:$port/big.bin?r=$query")
      status=$(grep -i '^cache-status' "$B/head.txt" | tr -d '\r' | cut -d' ' -f2- || true)
      printf "%-4s %-5s round %d: first byte %.3f s, total %.3f s, %.0f MB/s, %d bytes, Cache-Status %s\n" \
        $kind "$name" "$round" "$first" "$total" "$(echo "$speed / 1000000" | bc -l)" "$size" "$status"
    done
  done
  label=hits; [ $kind = miss ] && label=misses
  echo "after the $label: stash VmHWM $(peak $PROXY), nginx worker VmHWM $(peak "$(worker $CACHE)")"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
