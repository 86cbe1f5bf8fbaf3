#!/usr/bin/env bash
# Builds the DocC documentation of every library module as one combined archive, and fails on
# any documentation warning (a link that does not resolve, an ambiguous overload, an
# undocumented parameter, an article that collides with a symbol...).
#
#   Scripts/docs.sh            the archive: .build/plugins/Swift-DocC/outputs/Stash.doccarchive
#
# The modules are the targets of the library products and the package's own targets they
# depend on, read from the manifest, so a new library is documented (and checked) without
# editing this script. Combined mode gives each module its dependencies' archives, so a link
# to another module's symbol resolves when it is written absolute: ``/StashCore/StashError``.
# The full output is kept in .build/docs.log.
set -euo pipefail
cd "$(dirname "$0")/.."
log=.build/docs.log
mkdir -p .build

targets=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
wanted = [name for p in package["products"] if "library" in p["type"] for name in p["targets"]]
seen = set()
while wanted:
    name = wanted.pop()
    if name in seen or targets.get(name, {}).get("type") != "regular":
        continue
    seen.add(name)
    for dependency in targets[name]["dependencies"]:
        for kind in ("byName", "target"):
            if kind in dependency and dependency[kind][0] in targets:
                wanted.append(dependency[kind][0])
print(" ".join(sorted(seen)))
')
arguments=()
for target in $targets; do arguments+=(--target "$target"); done
echo "docs: documenting $targets"

status=0
swift package generate-documentation --enable-experimental-combined-documentation \
    "${arguments[@]}" > "$log" 2>&1 || status=$?

# Every warning counts (and every error: a failing link stops nothing else) but SwiftPM's
# notice that a dependency's checkout holds files its manifest does not declare
# ("'swift-distributed-tracing': found 1 file(s) which are unhandled"): not ours to fix, and
# not about documentation. The lines are not anchored at their end: the targets are built in
# parallel, so another process's output can land in the middle of a line.
root=$(basename "$PWD" | tr '[:upper:]' '[:lower:]')
warnings=$(grep -nE '(warning|error):' "$log" \
    | grep -Ev "warning: '[^']+': found [0-9]+ file\(s\) which are unhandled; explicitly declare them as resources or exclude from the target" \
    || true)
# ...unless the package in question is this one.
own=$(grep -n "warning: '$root': found [0-9]* file(s) which are unhandled" "$log" || true)
warnings=$(printf '%s\n%s' "$warnings" "$own" | sed '/^$/d')

if [ "$status" -ne 0 ] || [ -n "$warnings" ]; then
    [ -n "$warnings" ] && echo "docs: $(printf '%s\n' "$warnings" | wc -l) warning(s), each with its context in $log:"
    [ -n "$warnings" ] && printf '%s\n' "$warnings" | cut -d: -f2- | sort | uniq -c | sort -rn
    [ "$status" -ne 0 ] && { tail -n 20 "$log"; echo "docs: generate-documentation exited with $status"; }
    exit 1
fi
echo "docs: no warnings; the archive: $(grep -A1 'Generated combined documentation archive at:' "$log" | tail -n 1 | xargs)"
