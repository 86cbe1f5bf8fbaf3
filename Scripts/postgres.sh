#!/usr/bin/env bash
# A throwaway PostgreSQL for Stash's tests, benchmarks and tour.
#
#   Scripts/postgres.sh start [DIR]   initdb into DIR (once), start on 127.0.0.1 and a free
#                                     port, print the URL (postgres://stash@127.0.0.1:PORT/stash)
#   Scripts/postgres.sh pause [DIR]   stop the server, keep its data (start again resumes it
#                                     on the same port)
#   Scripts/postgres.sh stop [DIR]    stop the server and delete DIR
#   Scripts/postgres.sh url [DIR]     print the URL of a started server
#
# DIR defaults to $STASH_POSTGRES_DIR or /tmp/stash-postgres. PostgreSQL refuses to run as
# root, so as root the server runs as the `postgres` user (or `nobody`). Durability is off
# (fsync=off): this server is for tests, never for data you keep.
set -euo pipefail

command=${1:-}
dir=${2:-${STASH_POSTGRES_DIR:-/tmp/stash-postgres}}

bindir() {
    if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
        pg_config --bindir; return
    fi
    local candidate
    for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        [ -x "$candidate/initdb" ] && { echo "$candidate"; return; }
    done
    command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return; }
    echo "postgres.sh: no PostgreSQL server found (Debian: apt-get install postgresql)" >&2
    exit 3
}

# Runs a PostgreSQL command as an unprivileged user when this script runs as root.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        local user=postgres
        id "$user" >/dev/null 2>&1 || user=nobody
        runuser -u "$user" -- "$@"
    else
        "$@"
    fi
}

free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
        return
    fi
    local port
    for port in $(seq 54320 54999); do
        (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
    echo "postgres.sh: no free port" >&2; exit 3
}

url() { echo "postgres://stash@127.0.0.1:$(cat "$dir/port")/stash"; }

case "$command" in
start)
    bin=$(bindir)
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        mkdir -p "$dir"
        chmod 755 "$dir"
        [ "$(id -u)" = 0 ] && { id postgres >/dev/null 2>&1 && chown postgres "$dir" || chown nobody "$dir"; }
        as_owner "$bin/initdb" -D "$dir/data" -U stash -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
        free_port >"$dir/port"
    fi
    port=$(cat "$dir/port")
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off -c max_connections=200" \
            >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
        if [ ! -f "$dir/created" ]; then
            as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U stash stash && touch "$dir/created"
        fi
    fi
    url
    ;;
pause)
    [ -f "$dir/data/PG_VERSION" ] && as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
stop)
    [ -f "$dir/data/PG_VERSION" ] && as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
url)
    url
    ;;
*)
    echo "usage: $0 start|pause|stop|url [DIR]" >&2
    exit 64
    ;;
esac
