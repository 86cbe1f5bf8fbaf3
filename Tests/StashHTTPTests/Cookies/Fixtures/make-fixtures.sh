#!/bin/sh
# Writes the cookies.txt fixtures with curl itself: curl -c against cookie-origin.py on
# 127.0.0.1, reached as www.example.com (curl --resolve) so Domain cookies apply.
# Run from this folder: sh make-fixtures.sh
set -eu
portfile=$(mktemp)
python3 cookie-origin.py "$portfile" &
server=$!
trap 'kill $server; rm -f "$portfile"' EXIT
while [ ! -s "$portfile" ]; do sleep 0.1; done
port=$(cat "$portfile")
host=www.example.com
resolve="--resolve $host:$port:127.0.0.1"
rm -f curl-example.txt curl-loopback.txt
curl -s -o /dev/null $resolve -c curl-example.txt "http://$host:$port/"
curl -s -o /dev/null $resolve -b curl-example.txt -c curl-example.txt "http://$host:$port/account/login"
curl -s -o /dev/null -c curl-loopback.txt "http://127.0.0.1:$port/"
curl --version | head -1 > curl-version.txt
