#!/usr/bin/env bash
# The public API gate. `.api-baseline` holds the commit whose public API is the baseline
# (0.1.0 first); APIBaseline/<that commit>/ holds its API digests, one JSON file per library
# module, as `swift package diagnose-api-breaking-changes` writes them.
#
#   Scripts/api-check.sh                      compare the working tree's API with the baseline:
#                                             fails on any breaking change (removal, rename,
#                                             changed signature) and names it
#   Scripts/api-check.sh --rebaseline COMMIT  make COMMIT the baseline: rewrites .api-baseline
#                                             and APIBaseline/ (commit both, and say in
#                                             CHANGELOG.md what broke and why)
#
# With the digests committed, the check builds no second copy of the package: it dumps the
# working tree's modules and compares them (a few minutes after `swift build`). A rebaseline
# builds COMMIT in a checkout under .build (about 10 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--rebaseline" ]; then
    commit=$(git rev-parse --verify "${2:?usage: Scripts/api-check.sh --rebaseline COMMIT}^{commit}")
    rm -rf APIBaseline
    mkdir -p APIBaseline
    # Exits non-zero when the working tree breaks COMMIT's API; the digests are written first.
    swift package diagnose-api-breaking-changes "$commit" --baseline-dir APIBaseline --regenerate-baseline || true
    # Each digest records the digester's command line, with this machine's paths; the
    # comparison does not read it, so it is left out of the committed files.
    python3 - APIBaseline/"$commit"/*.json <<'PY'
import json, sys
for path in sys.argv[1:]:
    with open(path) as file:
        digest = json.load(file)
    digest["ABIRoot"].pop("tool_arguments", None)
    with open(path, "w") as file:
        file.write(json.dumps(digest, indent=2, ensure_ascii=False) + "\n")
PY
    echo "$commit" > .api-baseline
    set -- # fall through to the check of the new digests
fi

commit=$(tr -d '[:space:]' < .api-baseline)
digests="APIBaseline/$commit"
# A digest written while the digester could not load its module says NO_MODULE and lists
# nothing, and against it every change looks compatible: refuse to compare with one.
count=$(find "$digests" -name '*.json' 2>/dev/null | wc -l)
if [ "$count" -eq 0 ] || grep -l '"NO_MODULE"' "$digests"/*.json >/dev/null 2>&1; then
    echo "api-check: $digests holds no usable digest (missing, or written without its module); run Scripts/api-check.sh --rebaseline $commit" >&2
    exit 1
fi
swift package diagnose-api-breaking-changes "$commit" --baseline-dir APIBaseline
