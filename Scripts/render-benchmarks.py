#!/usr/bin/env python3
"""Renders docs/BENCHMARKS.md from docs/benchmarks/method.md (the hand-written method) and
docs/benchmarks/results.jsonl (what `stash-bench --json` printed, with a machine line that
Scripts/benchmarks.sh adds). Every figure in the page comes from the results file.

usage: Scripts/render-benchmarks.py [results.jsonl] [method.md] [README.md] > docs/BENCHMARKS.md

With a README, the block between its `<!-- benchmarks:start -->` and `<!-- benchmarks:end -->`
lines is replaced by a short table of headline cases from the same results.
"""
import json
import sys

# Extra fields shown beside a figure, in this order, and how. A field with one value for
# every implementation of a case is said once, beside the case's name.
SHOWN_EXTRAS = [
    ("p50_ms", "p50 {} ms"),
    ("p99_ms", "p99 {} ms"),
    ("p99_ms_range", "samples' p99 {} ms"),
    ("errors", "{} errors"),
    ("usedBytes", "file {} bytes used"),
    ("entries", "{} entries"),
    ("bytes_per_entry", "{} bytes resident per entry"),
    ("anon_bytes_per_entry", "{} of them heap"),
    ("reopen_ms", "reopen {} ms"),
    ("reopen_ms_max", "at most {} ms"),
    ("connections", "{} connections"),
    ("client", "client {}"),
    ("bytes", "{}-byte bodies"),
]
SHAPES = dict(SHOWN_EXTRAS)


def shown(key, value):
    if key in ("usedBytes", "bytes", "entries"):
        value = f"{int(value):,}"
    return SHAPES[key].format(value)


def common_keys(results):
    """The shown fields every result of a case has with one value."""
    keys = []
    for key, _ in SHOWN_EXTRAS:
        values = {str(result.get(key)) for result in results}
        if key in results[0] and len(values) == 1 and (len(results) > 1 or key in ("connections", "client", "bytes", "entries")):
            keys.append(key)
    return keys


def number(value):
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


def figure(result, common=()):
    text = f"{number(result['ops_per_s'])} ±{result['spread'] * 100:.0f}%"
    size = result.get("bytes")
    if isinstance(size, (int, float)) and size > 0:
        text += f" ({number(result['ops_per_s'] * size / 1e6)} MB/s)"
    details = []
    for key, _ in SHOWN_EXTRAS:
        if key not in result or key in common:
            continue
        if key == "errors" and not result[key]:
            continue
        details.append(shown(key, result[key]))
    if details:
        text += " (" + ", ".join(details) + ")"
    return text


def setup(results):
    """The case's shared fields, said once beside its name."""
    return "; ".join(shown(key, results[0][key]) for key in common_keys(results))


# The README's headline cases: (suite, case, what it is in a few words).
HEADLINES = [
    ("memory", "get-random", "memory cache, random hits"),
    ("memory", "set", "memory cache, writes"),
    ("disk", "read-small", "disk cache, small reads"),
    ("disk", "write-small", "disk cache, small writes with their commit"),
    ("preferences", "read-string", "preferences, string reads"),
    ("preferences", "write-string", "preferences, string writes"),
    ("http", "lookup-hit", "HTTP cache, lookups"),
    ("http", "proxy-hit-1k-c32", "caching proxy, 1 KB hits, 32 connections"),
    ("objects", "fetch", "object store, fetch"),
]


def readme_block(cases):
    lines = ["<!-- benchmarks:start -->", "| what | Stash, ops/s | peers (Stash ÷ peer) |", "|---|---:|---|"]
    for suite, name, what in HEADLINES:
        results = cases.get((suite, name))
        if not results:
            continue
        reference = results[0]
        # Peers only: Stash's own variants (stash-durable, stash-memory-only) and the proxy
        # cases' floor (a constant-reply server, the client's limit) are on the page.
        peers = ", ".join(
            f"{result['impl']} {reference['ops_per_s'] / result['ops_per_s']:.2f}×"
            for result in results[1:]
            if result["ops_per_s"] and not result["impl"].startswith("stash") and result["impl"] != "floor"
        )
        lines.append(f"| {what} | {number(reference['ops_per_s'])} | {peers} |")
    lines.append("<!-- benchmarks:end -->")
    return "\n".join(lines)


def rewrite_readme(path, cases):
    with open(path, encoding="utf-8") as readme:
        text = readme.read()
    start, end = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"
    if start not in text or end not in text:
        sys.exit(f"{path}: no {start} … {end} block")
    before, rest = text.split(start, 1)
    _, after = rest.split(end, 1)
    with open(path, "w", encoding="utf-8") as readme:
        readme.write(before + readme_block(cases) + after)


def main():
    results_path = sys.argv[1] if len(sys.argv) > 1 else "docs/benchmarks/results.jsonl"
    method_path = sys.argv[2] if len(sys.argv) > 2 else "docs/benchmarks/method.md"
    machine = {}
    notes = []
    cases = {}  # (suite, case) -> [results], in run order
    order = []
    with open(results_path, encoding="utf-8") as lines:
        for number_, line in enumerate(lines, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{results_path}:{number_}: not JSON ({error})")
            if "machine" in item:
                machine = item["machine"]
            elif "note" in item:
                notes.append(item["note"])
            elif "suite" in item:
                key = (item["suite"], item["case"])
                if key not in cases:
                    cases[key] = []
                    order.append(key)
                cases[key].append(item)
    with open(method_path, encoding="utf-8") as method:
        out = [method.read().rstrip(), ""]
    out.append("## Figures")
    out.append("")
    out.append("Generated by `Scripts/benchmarks.sh` from `docs/benchmarks/results.jsonl` (one run of "
               "`stash-bench --json`); do not edit by hand. Operations per second are the median of the "
               "samples, ± half the spread between the slowest and fastest sample; the ratio is Stash's "
               "median over the peer's (above 1: Stash is faster).")
    out.append("")
    suites = list(dict.fromkeys(suite for suite, _ in order))
    out.append(f"Suites in this run: {', '.join(suites)}; the others' cases are not shown until a run includes them.")
    out.append("")
    if machine:
        said = ", ".join(f"{key}: {value}" for key, value in machine.items())
        out.append(f"Machine: {said}.")
        out.append("")
    suite = None
    for key in order:
        results = cases[key]
        if key[0] != suite:
            suite = key[0]
            out += [f"### {suite}", "", "| case | Stash | peers (Stash ÷ peer) |", "|---|---|---|"]
        reference = results[0]
        common = common_keys(results)
        peers = []
        for result in results[1:]:
            ratio = reference["ops_per_s"] / result["ops_per_s"] if result["ops_per_s"] else float("inf")
            if result["impl"] == "floor":
                # Not a competitor: the most the client lets any server show.
                peers.append(f"floor, the client's limit: {figure(result, common)} (Stash at {ratio:.0%} of it)")
            else:
                peers.append(f"{result['impl']} {figure(result, common)} ({ratio:.2f}×)")
        label = key[1]
        context = setup(results)
        if context:
            label += f" ({context})"
        own = f"{reference['impl']}: {figure(reference, common)}" if reference["impl"] != "stash" else figure(reference, common)
        out.append(f"| {label} | {own} | {'; '.join(peers)} |")
        if key == order[-1] or order[order.index(key) + 1][0] != suite:
            out.append("")
    if notes:
        out += ["## Notes of the run", ""]
        out += [f"- {note}" for note in notes]
        out.append("")
    sys.stdout.write("\n".join(out))
    if len(sys.argv) > 3:
        rewrite_readme(sys.argv[3], cases)


if __name__ == "__main__":
    main()
