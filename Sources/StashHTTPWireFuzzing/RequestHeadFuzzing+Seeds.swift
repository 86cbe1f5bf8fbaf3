extension RequestHeadFuzzing {
    /// Connections' first bytes for the seed corpus: heads browsers and HTTP clients send,
    /// pipelined ones, a split one, and the forms the raw path leaves to the decoder
    /// (folded lines, bare LF, a second `Host`, the absolute form, a conditional, a body).
    package static let seeds: [String] = [
        // A browser's navigation.
        "GET /articles/42?ref=home HTTP/1.1\r\nHost: example.com\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
            + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\n"
            + "Accept-Encoding: gzip, deflate, br, zstd\r\nReferer: https://example.com/\r\nCookie: session=abc; theme=dark\r\n"
            + "Upgrade-Insecure-Requests: 1\r\nSec-Fetch-Dest: document\r\nSec-Fetch-Mode: navigate\r\nSec-Fetch-Site: same-origin\r\n"
            + "Sec-Fetch-User: ?1\r\nPriority: u=0, i\r\n\r\n",
        // curl, lowercase names from an HTTP library, and a HEAD that says it has no body.
        "GET /a.txt HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n",
        "GET /api/items HTTP/1.1\r\nhost: api.example.com\r\naccept: application/json\r\nx-request-id: 7f3a\r\nauthorization: Bearer t0k3n\r\n\r\n",
        "HEAD /logo.png HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\nKeep-Alive: timeout=5\r\n\r\n",
        // Pipelined: three hits, then a hit followed by a request with a body.
        "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\nHEAD /3 HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /form HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
        // Split: a head whose end has not arrived, after a whole one.
        "GET /whole HTTP/1.1\r\nHost: a\r\n\r\nGET /split HTTP/1.1\r\nHost: a\r\nAccept: text/",
        // Whitespace around values, a tab, an empty value, repeated fields.
        "GET /ws HTTP/1.1\r\nHost:a\r\nX-Pad: \t spaced out \t\r\nX-Empty:\r\nVary-Me: 1\r\nvary-me: 2\r\n\r\n",
        // Left to the decoder: a folded line, bare LF, a second Host, the absolute form.
        "GET /fold HTTP/1.1\r\nHost: a\r\nX-Folded: one\r\n two\r\n\r\n",
        "GET /lf HTTP/1.1\nHost: a\nAccept: */*\n\n",
        "GET /twice HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET http://example.com/absolute HTTP/1.1\r\nHost: example.com\r\n\r\n",
        // Left to the full flow: a conditional, a closing connection, a chunked body, HTTP/1.0.
        "GET /etag HTTP/1.1\r\nHost: a\r\nIf-None-Match: \"v1\"\r\nCache-Control: max-age=0\r\n\r\n",
        "GET /bye HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        "GET /chunked HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "GET /old HTTP/1.0\r\nHost: a\r\n\r\n",
        // Blank lines before a request line, which the decoder skips.
        "\r\n\r\nGET /late HTTP/1.1\r\nHost: a\r\n\r\n",
    ]
}
