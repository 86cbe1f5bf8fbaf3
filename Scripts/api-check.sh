#!/usr/bin/env bash
# The public API gate. `.api-baseline` holds the commit whose public API is the baseline
# (0.1.0 first); APIBaseline/<that commit>/ holds its API digests, one JSON file per library
# module, as `swift package diagnose-api-breaking-changes` writes them.
#
#   Scripts/api-check.sh                      compare the working tree's API with the baseline:
#                                             fails on any breaking change (a module, symbol or
#                                             conformance removed or renamed, a signature
#                                             changed) and names it
#   Scripts/api-check.sh --rebaseline COMMIT  make COMMIT the baseline: rewrites .api-baseline
#                                             and APIBaseline/ (commit both, and say in
#                                             CHANGELOG.md what broke and why)
#
# With the digests committed, the check builds no second copy of the package: it dumps the
# working tree's modules and compares them (a few minutes after `swift build`). A rebaseline
# builds COMMIT in a checkout under .build (about 10 minutes). Both need COMMIT in the clone's
# history (not a shallow clone).
set -euo pipefail
export LC_ALL=C   # one sort order for comm
cd "$(dirname "$0")/.."

# The Swift modules of the package's library products, one per line.
library_modules() {
    swift package dump-package | python3 -c '
import json, os, sys
package = json.load(sys.stdin)
targets = {target["name"]: target for target in package["targets"]}
modules = set()
for product in package["products"]:
    if "library" in product["type"]:
        modules.update(product["targets"])
def is_swift(name):
    path = targets[name].get("path") or os.path.join("Sources", name)
    return any(file.endswith(".swift") for _, _, files in os.walk(path) for file in files)
print("\n".join(sorted(name for name in modules if is_swift(name))))
'
}

if [ "${1:-}" = "--rebaseline" ]; then
    commit=$(git rev-parse --verify "${2:?usage: Scripts/api-check.sh --rebaseline COMMIT}^{commit}")
    # Written aside first: APIBaseline/ is replaced only once every module has its digest.
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    # Exits non-zero when the working tree breaks COMMIT's API; the digests are written first.
    swift package diagnose-api-breaking-changes "$commit" --baseline-dir "$scratch" --regenerate-baseline || true
    for module in $(library_modules); do
        [ -s "$scratch/$commit/$module.json" ] || { echo "api-check: no digest of $module was written for $commit" >&2; exit 1; }
    done
    # Each digest records the digester's command line, with this machine's paths; the
    # comparison does not read it, so it is left out of the committed files.
    python3 - "$scratch/$commit"/*.json <<'PY'
import json, sys
for path in sys.argv[1:]:
    with open(path) as file:
        digest = json.load(file)
    digest["ABIRoot"].pop("tool_arguments", None)
    with open(path, "w") as file:
        file.write(json.dumps(digest, indent=2, ensure_ascii=False) + "\n")
PY
    rm -rf APIBaseline
    mkdir -p APIBaseline
    mv "$scratch/$commit" "APIBaseline/$commit"
    echo "$commit" > .api-baseline
fi

commit=$(tr -d '[:space:]' < .api-baseline)
digests="APIBaseline/$commit"
git cat-file -e "$commit^{commit}" 2>/dev/null || {
    echo "api-check: the baseline commit $commit is not in this clone's history (a shallow clone?)" >&2
    exit 1
}
# A digest written while the digester could not load its module says NO_MODULE and lists
# nothing, and against it every change looks compatible: refuse to compare with one.
if [ ! -d "$digests" ] || [ -z "$(find "$digests" -name '*.json' -print -quit)" ] \
        || grep -q -l '"NO_MODULE"' "$digests"/*.json; then
    echo "api-check: $digests holds no usable digest (missing, or written without its module); run Scripts/api-check.sh --rebaseline $commit" >&2
    exit 1
fi

# SwiftPM compares the modules the working tree has: a library module that is gone would not
# be compared at all, and one without a digest would make it build the baseline commit again.
current=$(library_modules)
baseline=$(cd "$digests" && ls -- *.json | sed 's/\.json$//' | sort)
removed=$(comm -13 <(echo "$current") <(echo "$baseline"))
added=$(comm -23 <(echo "$current") <(echo "$baseline"))
if [ -n "$removed" ]; then
    echo "api-check: 💔 library modules of the baseline are gone: $(echo $removed)" >&2
    exit 1
fi
if [ -n "$added" ]; then
    echo "api-check: new library modules, not in the baseline (additions break nothing): $(echo $added)"
fi
targets=()
for module in $baseline; do targets+=(--targets "$module"); done
swift package diagnose-api-breaking-changes "$commit" --baseline-dir APIBaseline "${targets[@]}"
