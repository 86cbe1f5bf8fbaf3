#!/usr/bin/env bash
# The crash-state explorer (simulated power cuts) outside `swift test`, with a larger budget.
#
#   Scripts/crash-explore.sh [STORE…]
#
# STORE is one of: preferences, disk-cache, file-store, vault, cookie-jar, pools-and-queues,
# object-store, sql-database (all of them by default). Each store's workload runs under both
# persistence models (ext4 data=ordered, and "anything unsynced may be lost or reordered");
# the script prints one line per store and model:
#
#   preferences: 3000 crash states, 0 violations (ext4 data=ordered, 212 moments, seed 8841…)
#
# and exits non-zero when a test fails: a violation where none may be (one line, the file
# store's save without fsync, shows the violations the explorer must find). STASH_CRASH_BUDGET sets the number of
# crash states per store and model (default 3000, what the Durability article cites; `swift
# test` checks 240), and the workloads grow with it; STASH_TEST_SEED replays a run.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A suites=(
    [preferences]=PreferencesPowerLossTests
    [disk-cache]=DiskCachePowerLossTests
    [file-store]=FileStorePowerLossTests
    [vault]=VaultPowerLossTests
    [cookie-jar]='CookieJarFaultTests/everyChangeThatReturnedSurvivesAPowerCut'
    [pools-and-queues]='CollectionFaultTests/everySaveThatReturnedSurvivesAPowerCut'
    [object-store]=ObjectStorePowerLossTests
    [sql-database]=StashDatabasePowerLossTests
)
stores=("$@")
[ ${#stores[@]} -gt 0 ] || stores=(preferences disk-cache file-store vault cookie-jar pools-and-queues object-store sql-database)
filters=()
for store in "${stores[@]}"; do
    [ -n "${suites[$store]:-}" ] || { echo "unknown store: $store (one of: ${!suites[*]})" >&2; exit 64; }
    filters+=("${suites[$store]}")
done
filter=$(IFS='|'; echo "${filters[*]}")

export STASH_CRASH_BUDGET=${STASH_CRASH_BUDGET:-3000}
log=$(mktemp -t crash-explore.XXXXXX)
status=0
swift test --filter "$filter" >"$log" 2>&1 || status=$?
sed -n 's/^crash explorer: //p' "$log"
if [ "$status" -ne 0 ]; then
    echo "the explorer's tests failed (exit $status); the log is $log" >&2
    exit "$status"
fi
rm -f "$log"
