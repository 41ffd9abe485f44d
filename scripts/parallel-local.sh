#!/usr/bin/env bash
# Counts a board in shards run by GNU parallel on this machine.
#
#   scripts/parallel-local.sh BOARD [count options] --shards N
#   e.g. scripts/parallel-local.sh 7x8 --closed --shards 8
#
# Each shard is one `knights count BOARD ... --shard K/N` with its own checkpoint in the run
# folder and the split all shards share (`--split`); parallel runs JOBS of them at a time
# (default: one a core), then the script merges the checkpoints (`knights merge`) and prints
# the total as `knights count` does (`--json`: as JSON). Running it again resumes: finished
# shards return at once, and the job log lets parallel skip them.
#
# Environment: RUN_DIR (the run folder; default knights-run-BOARD-N here), KNIGHTS (the binary;
# default this checkout's release build), JOBS (shards at a time), SHARD_THREADS (threads a
# shard, default 1). GNU parallel is installed with apt when missing (as root).
set -euo pipefail
SCRIPT=parallel-local.sh
. "$(dirname "$0")/lib.sh"
knights_args "$@"
knights_binary
knights_run_dir

if ! command -v parallel >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "$SCRIPT: GNU parallel is missing (as root: apt-get install parallel)" >&2
        exit 2
    fi
    echo "$SCRIPT: installing GNU parallel with apt" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends parallel >&2
fi

for ((k = 0; k < SHARDS; k++)); do
    echo "$(knights_shard_command "$k") --threads ${SHARD_THREADS:-1} > $(printf '%q' "$RUN/shard-$k.log") 2>&1"
done > "$RUN/shards.txt"
code=0
parallel --will-cite --jobs "${JOBS:-$(nproc)}" --joblog "$RUN/jobs.log" --resume-failed \
    < "$RUN/shards.txt" || code=$?
if [ "$code" -ne 0 ]; then
    echo "$SCRIPT: $code shard(s) failed; their logs are $RUN/shard-K.log" >&2
fi
knights_merge
