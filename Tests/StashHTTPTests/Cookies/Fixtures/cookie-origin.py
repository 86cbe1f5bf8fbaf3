#!/usr/bin/env python3
"""A loopback origin that sets the cookies make-fixtures.sh asks curl to store.

Usage: cookie-origin.py PORTFILE  (binds 127.0.0.1 on a free port, writes the port to PORTFILE)
"""
import http.server
import sys

COOKIES = {
    "/": [
        "session=s3ss10n; Path=/",
        "persistent=forever; Max-Age=315360000; Path=/",
        "wide=everywhere; Domain=example.com; Path=/; Max-Age=315360000",
        "secret=hidden; HttpOnly; Max-Age=315360000",
        "secure=only-tls; Secure; Max-Age=315360000",
        "spaced=\"a b c\"; Max-Age=315360000",
    ],
    "/account/login": [
        "token=xyz; Path=/account; Max-Age=315360000",
        "folder=default-path; Max-Age=315360000",
    ],
}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        for line in COOKIES.get(self.path, []):
            self.send_header("Set-Cookie", line)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
