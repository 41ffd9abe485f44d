#!/usr/bin/env bash
# The slow tier of the tests: every test marked #[ignore] (the slow known counts, by pieces and
# shards too; 5x8 open and 7x8 closed by the 8-wide engine; the DFS against plain backtracking on
# the slower boards; kill -9 of a 6x8 closed count). Run it before a release, on a machine left
# alone: about half an hour on 2 cores (see the README's Testing section for the last measured
# time), minutes on many.
#
# usage: scripts/slow-tests.sh [extra cargo test arguments, e.g. a test name filter]
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
cargo test --profile test-release --locked -- --ignored "$@"
echo "slow tier passed in $(( $(date +%s) - start )) s"
