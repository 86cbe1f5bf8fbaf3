#!/usr/bin/env python3
"""Renders docs/BENCHMARKS.md from docs/benchmarks/method.md (the hand-written method) and
docs/benchmarks/results.jsonl (what `stash-bench --json` printed in one or more runs, each
after a `{"run": N}` line, with a machine line that Scripts/benchmarks.sh adds), and one SVG
chart per suite beside the results file. Every figure in the page comes from the results.

usage: Scripts/render-benchmarks.py [results.jsonl] [method.md] [README.md] > docs/BENCHMARKS.md

Ratios are Stash's rate over a peer's, paired round by round (the harness interleaves the
contenders, so sample i of each was taken in the same round), pooled over every run: their
geometric mean and its 95% interval (Student's t on the logarithms). A ratio whose interval
crosses 1.0 is printed as parity. The rates shown are those of the median run of the case
(the run whose own ratio to the first peer is the median).

With a README, the block between its `<!-- benchmarks:start -->` and `<!-- benchmarks:end -->`
lines is replaced by a short table of headline cases from the same results.
"""
import json
import math
import os
import sys

# Extra fields shown beside a figure, in this order, and how. A field with one value for
# every implementation of a case is said once, beside the case's name.
SHOWN_EXTRAS = [
    ("p50_ms", "p50 {} ms"),
    ("offered", "offered {} requests/s"),
    ("p99_ms", "p99 {} ms"),
    ("p999_ms", "p99.9 {} ms"),
    ("p99_ms_range", "samples' p99 {} ms"),
    ("errors", "{} errors"),
    ("cpu_us_per_op", "{} µs CPU per operation"),
    ("usedBytes", "file {} bytes used"),
    ("document_bytes", "{}-byte document"),
    ("entries", "{} entries"),
    ("footprint_bytes_per_entry", "{} bytes per entry in memory (heap and resident file pages)"),
    ("bytes_per_entry", "{} bytes resident per entry"),
    ("anon_bytes_per_entry", "{} of them heap"),
    ("disk_bytes_per_entry", "{} bytes on disk per entry"),
    ("cold_reads_per_s", "{} reads/s cold"),
    ("cold_p99_ms", "p99 {} ms cold"),
    ("reopen_ms", "reopen {} ms"),
    ("reopen_ms_max", "at most {} ms"),
    ("connections", "{} connections"),
    ("client", "client {}"),
    ("bytes", "{}-byte bodies"),
    ("share", "{}"),
]
SHAPES = dict(SHOWN_EXTRAS)
CASE_WIDE = ("connections", "client", "bytes", "entries", "document_bytes", "offered", "share")

# Peers kept as a first version would set them up, beside an expert one: (suite, impl) and
# what makes them naive. Their rows say so.
NAIVE = {
    ("disk", "sqlite-raw"): "naive: one transaction per write, a read lock per statement",
    ("shared", "postgres-raw"): "naive: one statement per operation",
}
# The expert set-up beside each naive one: where a case has it, the README shows it alone.
EXPERT = {("disk", "sqlite-raw"): "sqlite-expert", ("shared", "postgres-raw"): "postgres-batched"}

# Two-sided 95% quantiles of Student's t, by degrees of freedom; 1.96 beyond the table.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(degrees):
    return T95[degrees - 1] if degrees <= len(T95) else 1.96


def shown(key, value):
    if key in ("usedBytes", "bytes", "entries", "document_bytes", "cold_reads_per_s", "offered"):
        value = f"{int(float(value)):,}"
    return SHAPES[key].format(value)


def common_keys(results):
    """The shown fields every result of a case has with one value."""
    keys = []
    for key, _ in SHOWN_EXTRAS:
        values = {str(result.get(key)) for result in results}
        if key in results[0] and len(values) == 1 and (len(results) > 1 or key in CASE_WIDE):
            keys.append(key)
    return keys


def number(value):
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


def rates(result):
    return [ops / seconds for ops, seconds in zip(result["sample_ops"], result["samples"]) if seconds > 0]


def spread(result):
    if len(result["samples"]) < 2:
        return "n=1"
    return f"±{result['spread'] * 100:.0f}%"


def figure(result, common=()):
    text = f"{number(result['ops_per_s'])} {spread(result)}"
    # An operation's bytes: a body (`bytes`), or a document over its records (`bytes_per_op`).
    size = result.get("bytes_per_op", result.get("bytes"))
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


class Ratio:
    """Stash ÷ a peer over every paired round of every run."""

    def __init__(self, pairs):
        logs = [math.log(a / b) for a, b in pairs if a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)]
        self.count = len(logs)
        self.value = math.exp(sum(logs) / len(logs)) if logs else float("nan")
        self.low = self.high = None
        if len(logs) >= 2:
            mean = sum(logs) / len(logs)
            deviation = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
            half = t95(len(logs) - 1) * deviation / math.sqrt(len(logs))
            self.low, self.high = math.exp(mean - half), math.exp(mean + half)

    @property
    def parity(self):
        return self.low is not None and self.low <= 1.0 <= self.high

    def short(self):
        """The ratio alone, or "parity"."""
        if math.isnan(self.value):
            return "n/a"
        return "parity" if self.parity else f"{self.value:.2f}×"

    def text(self):
        """The ratio with its interval and how many pairs it rests on."""
        if math.isnan(self.value):
            return "n/a"
        if self.low is None:
            return f"{self.value:.2f}×, one pair"
        interval = f"{self.low:.2f}–{self.high:.2f}, {self.count} pairs"
        return f"parity: {self.value:.2f}× ({interval})" if self.parity else f"{self.value:.2f}× ({interval})"


def paired_ratio(runs, reference, impl):
    """The paired rounds of `reference` and `impl` over every run that has both."""
    pairs = []
    for run in runs:
        if reference in run and impl in run:
            pairs += list(zip(rates(run[reference]), rates(run[impl])))
    return Ratio(pairs)


def median_run(runs):
    """The run of a case whose own ratio of the first to the second implementation is the
    median of the runs' (the only run when there is one)."""
    if len(runs) == 1:
        return runs[0]
    order = list(runs[0].keys())
    if len(order) < 2:
        return runs[len(runs) // 2]
    scored = sorted(runs, key=lambda run: paired_ratio([run], order[0], order[1]).value
                    if order[0] in run and order[1] in run else 0)
    return scored[len(scored) // 2]


# Not peers but designs Stash could have used, measured to tell what its own buys: their
# rows say so, and the README leaves them out.
DESIGNS = {("disk", "sqlite-design"): "design candidate"}


def peer_label(suite, impl):
    naive = NAIVE.get((suite, impl))
    if naive:
        return f"{impl} ({naive.split(':')[0]})"
    design = DESIGNS.get((suite, impl))
    return f"{impl} ({design})" if design else impl


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


# The goals the page checks, against every run: (what, a short name for the README, suite,
# cases, peers, how, why). `how`
# is "rate" (Stash's rate over the peer's, paired over every run: the goal holds when the
# interval is above 1.0) or a field where lower is better (the goal holds in a run where
# Stash's figure is at most the peer's; it holds when it holds in every run). `why` is shown
# where a goal does not hold: the trade that was made.
GOALS = [
    ("disk cache small reads ≥ SQLite as its experts set it up", "disk reads", "disk", ["read-small"], ["sqlite-expert"], "rate",
     "DiskCache reads a value through its location index and a `pread` of its log, then checks the record's "
     "checksum and key; the peer reads one row of one table."),
    ("disk cache small writes, with their commit, ≥ SQLite as its experts set it up", "disk writes", "disk", ["write-small"],
     ["sqlite-expert"], "rate",
     "A DiskCache write appends the value to its log, records its place in the location index and writes a "
     "manifest row with its size, expiry and access time, which size-limited, least-recently-used eviction "
     "needs; the peer writes one row and keeps no size, no access order and no eviction."),
    ("memory at a million entries (heap and resident file pages) ≤ SQLite as its experts set it up", "disk memory at 1M entries", "disk",
     ["scale-1m"], ["sqlite-expert"], "footprint_bytes_per_entry",
     "DiskCache keeps a mapped location index of every key beside its SQLite manifest, so that a read finds "
     "its value without SQLite; the index and the manifest's eviction columns are memory that one table does "
     "not hold."),
    ("preferences reads ≥ MMKV", "preferences reads", "preferences", ["read-int", "read-string"], ["MMKV"], "rate",
     "Both read a decoded value from an in-memory table; Preferences also checks the mapped change counter on "
     "every read, so that a write by another process is seen at once."),
    ("preferences open ≥ MMKV", "preferences open", "preferences", ["open-10000-keys", "open-100000-keys"], ["MMKV"], "rate",
     "Opening checks every group's CRC-32 and decodes every key into the index, so that a torn or altered file "
     "is refused at open rather than on a later read."),
    ("proxy p99 at 50% of nginx's capacity ≤ nginx's and Varnish's", "proxy p99 at 50% load", "http",
     ["proxy-latency-1k-50pct", "proxy-mixed-50pct"], ["nginx", "varnish"], "p99_ms",
     "The proxy is one process answering from a memory tier in front of its disk cache, in Swift on SwiftNIO; "
     "with two CPUs it spends more of them per request than nginx, whose cached files the kernel sends."),
    ("proxy p99 at 90% of nginx's capacity ≤ nginx's and Varnish's", "proxy p99 at 90% load", "http",
     ["proxy-latency-1k-90pct", "proxy-mixed-90pct"], ["nginx", "varnish"], "p99_ms",
     "Near nginx's capacity, the proxy's larger cost per request (above) leaves it no headroom: requests "
     "queue, and the queue is its latency."),
    ("shared cache ≥ postgres-nio with the same batching, 1 and 32 tasks", "shared cache", "shared",
     ["get-c1", "set-c1", "get-c32", "set-c32"], ["postgres-batched"], "rate",
     "Both send the same statements; SharedCache also encodes each value with its expiry and checks what it "
     "reads back."),
]


def lower_held(runs, impl, field):
    """In how many runs Stash's `field` was at most `impl`'s, and of how many runs with both."""
    held = total = 0
    for run in runs:
        if "stash" in run and impl in run and field in run["stash"] and field in run[impl]:
            total += 1
            held += float(run["stash"][field]) <= float(run[impl][field])
    return held, total


def unit(field):
    return " ms" if field.endswith("_ms") else " bytes"


def goal_rows(cases):
    """[(what, short name, what was measured, status, why)] for every goal whose cases ran: status is
    "holds", "parity", "slower" or "larger" (memory)."""
    rows = []
    for what, short, suite, names, peers, how, why in GOALS:
        measured, states = [], []
        for name in names:
            runs = cases.get((suite, name))
            if not runs:
                continue
            shown_run = median_run(runs)
            compared = []
            for impl in peers:
                if how == "rate":
                    ratio = paired_ratio(runs, "stash", impl)
                    if math.isnan(ratio.value):
                        continue
                    measured.append(f"{name} ÷ {impl}: {ratio.text()}")
                    if ratio.parity or ratio.low is None:
                        states.append("parity")
                    else:
                        states.append("holds" if ratio.value > 1 else "slower")
                else:
                    held, total = lower_held(runs, impl, how)
                    if not total:
                        continue
                    theirs = shown_run.get(impl, {}).get(how)
                    compared.append(f"{impl} {theirs}{unit(how)} (Stash's at most in {held} of {total} runs)")
                    worse = "larger" if how.startswith("footprint") else "slower"
                    states.append("holds" if held == total else (worse if held == 0 else "parity"))
            if compared:
                mine = shown_run.get("stash", {}).get(how)
                measured.append(f"{name}: Stash {mine}{unit(how)}; " + ", ".join(compared))
        if not states:
            continue
        status = next((state for state in ("slower", "larger", "parity") if state in states), "holds")
        rows.append((what, short, "; ".join(measured), status, why))
    return rows


def is_competitor(suite, impl, impls):
    # Stash's own variants (stash-durable, stash-memory-only), the proxy cases' floor (a
    # bound, not a competitor) and a naive set-up measured beside its expert one are on the
    # page, not in the README.
    if impl.startswith("stash") or impl == "floor" or (suite, impl) in DESIGNS:
        return False
    return EXPERT.get((suite, impl)) not in impls


def readme_block(cases):
    lines = ["<!-- benchmarks:start -->", "| what | Stash, ops/s | peers (Stash ÷ peer) |", "|---|---:|---|"]
    for suite, name, what in HEADLINES:
        runs = cases.get((suite, name))
        if not runs:
            continue
        shown_run = median_run(runs)
        reference = next(iter(shown_run))
        peers = ", ".join(
            f"{peer_label(suite, impl)} {paired_ratio(runs, reference, impl).short()}"
            for impl in shown_run if impl != reference and is_competitor(suite, impl, shown_run)
        )
        lines.append(f"| {what} | {number(shown_run[reference]['ops_per_s'])} | {peers} |")
    unmet = [f"{short} ({status})" for _, short, _, status, _ in goal_rows(cases) if status != "holds"]
    if unmet:
        lines += ["", "Goals not met: " + ", ".join(unmet) + " ([why](docs/BENCHMARKS.md#goals))."]
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


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chart(suite, rows):
    """An SVG of each (case, peer) ratio with its interval on a logarithmic axis, the 1.0
    line marked. `rows` is [(label, Ratio)]."""
    left, width, row_height, top = 300, 420, 20, 46
    values = [v for _, r in rows for v in (r.value, r.low, r.high) if v is not None and math.isfinite(v) and v > 0]
    low = min(values + [1.0]) / 1.25
    high = max(values + [1.0]) * 1.25
    span = math.log(high) - math.log(low)

    def x(value):
        return left + (math.log(min(max(value, low), high)) - math.log(low)) / span * width

    height = top + row_height * len(rows) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 40}" height="{height}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="18" font-size="14" font-weight="bold">{escape(suite)}: Stash ÷ peer, 95% interval</text>',
           f'<text x="10" y="34" fill="#555">right of the 1.0 line: Stash is faster; grey: parity</text>']
    ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500) if low <= t <= high]
    for tick in ticks:
        out.append(f'<line x1="{x(tick):.1f}" y1="{top - 6}" x2="{x(tick):.1f}" y2="{height - 24}" '
                   f'stroke="{"#000" if tick == 1 else "#ddd"}" stroke-width="{2 if tick == 1 else 1}"/>')
        out.append(f'<text x="{x(tick):.1f}" y="{height - 8}" text-anchor="middle" fill="#555">{tick:g}×</text>')
    for index, (label, ratio) in enumerate(rows):
        y = top + row_height * index + row_height / 2
        out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(label)}</text>')
        if math.isnan(ratio.value):
            continue
        color = "#888" if ratio.parity or ratio.low is None else ("#2a7d2a" if ratio.value > 1 else "#b03030")
        if ratio.low is not None:
            out.append(f'<line x1="{x(ratio.low):.1f}" y1="{y:.1f}" x2="{x(ratio.high):.1f}" y2="{y:.1f}" '
                       f'stroke="{color}" stroke-width="2"/>')
        out.append(f'<circle cx="{x(ratio.value):.1f}" cy="{y:.1f}" r="4" fill="{color}">'
                   f'<title>{escape(label)}: {escape(ratio.text())}</title></circle>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def read_results(path):
    machine, notes = {}, []
    cases = {}  # (suite, case) -> [ {impl: result} per run ], in order of first appearance
    order = []
    run = 0
    with open(path, encoding="utf-8") as lines:
        for number_, line in enumerate(lines, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{path}:{number_}: not JSON ({error})")
            if "machine" in item:
                machine = item["machine"]
            elif "run" in item:
                run = item["run"]
            elif "note" in item:
                if item["note"] not in notes:
                    notes.append(item["note"])
            elif "suite" in item:
                key = (item["suite"], item["case"])
                if key not in cases:
                    cases[key] = {}
                    order.append(key)
                cases[key].setdefault(run, {})[item["impl"]] = item
    return machine, notes, {key: list(runs.values()) for key, runs in cases.items()}, order


def main():
    results_path = sys.argv[1] if len(sys.argv) > 1 else "docs/benchmarks/results.jsonl"
    method_path = sys.argv[2] if len(sys.argv) > 2 else "docs/benchmarks/method.md"
    machine, notes, cases, order = read_results(results_path)
    run_count = max((len(runs) for runs in cases.values()), default=0)
    with open(method_path, encoding="utf-8") as method:
        out = [method.read().rstrip(), ""]
    out.append("## Figures")
    out.append("")
    out.append(f"Generated by `Scripts/benchmarks.sh` from `docs/benchmarks/results.jsonl` ({run_count} "
               f"run{'s' if run_count != 1 else ''} of `stash-bench --json`); do not edit by hand. Operations "
               "per second are the median of one run's samples (the case's median run), ± half the spread "
               "between its slowest and fastest sample (n=1: a single sample). The ratio is Stash's rate over "
               "the peer's (above 1: Stash is faster), paired round by round over every run, with its 95% "
               "interval and the number of pairs; an interval that crosses 1.0 is parity. Open-loop cases "
               "(an `offered` rate) offer every server the same load, so they compare latencies, not rates.")
    out.append("")
    suites = list(dict.fromkeys(suite for suite, _ in order))
    sample_counts = sorted({len(result["samples"]) for runs in cases.values() for run in runs for result in run.values()})
    out.append(f"Suites in this run: {', '.join(suites)}; the others' cases are not shown until a run includes them. "
               f"Samples per implementation, case and run: {', '.join(map(str, sample_counts))}.")
    out.append("")
    if machine:
        said = ", ".join(f"{key}: {value}" for key, value in machine.items())
        out.append(f"Machine and versions: {said}.")
        out.append("")
    if any(NAIVE.get(key) for key in NAIVE if key[0] in suites):
        out.append("Rows marked naive keep a peer as a first version would set it up, beside its expert "
                   "set-up: " + "; ".join(f"`{impl}` in `{suite}` ({why.split(': ', 1)[1]})"
                                          for (suite, impl), why in NAIVE.items() if suite in suites) + ".")
        out.append("")
    goals = goal_rows(cases)
    if goals:
        out += ["## Goals", "",
                "Each goal against every run: a ratio's 95% interval, or in how many runs a figure where lower "
                "is better held. Where a goal does not hold, the last column says what Stash does that the peer "
                "does not.", "", "| goal | measured | | why, where it does not hold |", "|---|---|---|---|"]
        out += [f"| {what} | {measured} | **{status}** | {why if status != 'holds' else ''} |"
                for what, _, measured, status, why in goals]
        out.append("")
    chart_folder = os.path.dirname(os.path.abspath(results_path))
    suite = None
    rows = {}
    for key in order:
        runs = cases[key]
        shown_run = median_run(runs)
        results = list(shown_run.values())
        if key[0] != suite:
            suite = key[0]
            out += [f"### {suite}", "", f"![{suite}: Stash ÷ each peer, with its interval](benchmarks/{suite}.svg)", "",
                    "| case | Stash | peers (Stash ÷ peer) |", "|---|---|---|"]
        reference = results[0]
        common = common_keys(results)
        peers = []
        for result in results[1:]:
            ratio = paired_ratio(runs, reference["impl"], result["impl"])
            if "offered" in result:
                # Open loop: every server is offered the same rate, so the figures to compare
                # are the latencies, not the rates.
                peers.append(f"{peer_label(suite, result['impl'])} {figure(result, common)}")
            elif result["impl"] == "floor":
                # Not a competitor: the most the client lets any server show.
                share = reference["ops_per_s"] / result["ops_per_s"] if result["ops_per_s"] else float("inf")
                peers.append(f"floor, the client's limit: {figure(result, common)} (Stash at {share:.0%} of it)")
            else:
                peers.append(f"{peer_label(suite, result['impl'])} {figure(result, common)} ({ratio.text()})")
                rows.setdefault(suite, []).append((f"{key[1]} · {peer_label(suite, result['impl'])}", ratio))
        label = key[1]
        context = setup(results)
        if context:
            label += f" ({context})"
        own = f"{reference['impl']}: {figure(reference, common)}" if reference["impl"] != "stash" else figure(reference, common)
        out.append(f"| {label} | {own} | {'; '.join(peers)} |")
        if key == order[-1] or order[order.index(key) + 1][0] != suite:
            out.append("")
    for name, suite_rows in rows.items():
        with open(os.path.join(chart_folder, f"{name}.svg"), "w", encoding="utf-8") as svg:
            svg.write(chart(name, suite_rows))
    if notes:
        out += ["## Notes of the run", ""]
        out += [f"- {note}" for note in notes]
        out.append("")
    sys.stdout.write("\n".join(out))
    if len(sys.argv) > 3:
        rewrite_readme(sys.argv[3], cases)


if __name__ == "__main__":
    main()
