#!/usr/bin/env bash
# The cluster scripts' test: 7x8 closed in 8 shards, by GNU parallel and by a one-node Slurm
# cluster started here (see scripts/slurm-local.sh), each merged to the published count
# (34,524,432,316, OEIS A193054). Installs what is missing with apt (as root). Exit 0 when both
# give the count; the run folders are left in a temporary folder, named on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
want=34524432316
tmp="$(mktemp -d)"
status=0
for runner in parallel slurm; do
    start=$(date +%s)
    out="$(RUN_DIR="$tmp/$runner" "$here/$runner-local.sh" 7x8 --closed --shards 8 --json)" || {
        echo "test-cluster: $runner-local.sh failed; its run folder is $tmp/$runner" >&2
        status=1
        continue
    }
    if printf '%s' "$out" | grep -q "\"undirected\":$want[,}]" \
        && printf '%s' "$out" | grep -q '"complete":true'; then
        echo "test-cluster: $runner: 7x8 closed in 8 shards = $want ($(($(date +%s) - start)) s)"
    else
        echo "test-cluster: $runner: wrong or incomplete total: $out" >&2
        status=1
    fi
done
[ "$status" -eq 0 ] && rm -rf "$tmp"
exit "$status"
