#!/usr/bin/env bash
# The leaves of one piece a frontier count finishes in two minutes, after its first three (its
# path of nodes made), and the CPU time they took: a piece's speed by build and by threads
# without counting the whole piece (results/eight.md, "The eleventh stop").
#
#   scripts/leaf-rate.sh KNIGHTS THREADS DIR BOARD PIECE SPLIT [OPTIONS...]
#   scripts/leaf-rate.sh target/release/knights 2 /tmp/lr "8x10 --closed" 121 /work/runs/c810.split
#
# SPLIT is the shared walk a checkpointed run of the same count left beside its log
# (FILE.split, copied before the run ends); DIR is emptied and holds the run's files.
set -euo pipefail
[ $# -ge 6 ] || { echo "usage: $0 KNIGHTS THREADS DIR BOARD PIECE SPLIT [OPTIONS...]" >&2; exit 2; }
bin=$(realpath "$1"); threads=$2; dir=$3; board=$4; piece=$5; split=$(realpath "$6"); shift 6
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
# shellcheck disable=SC2086 # the board may carry --closed
"$bin" count $board --only "$piece" --split "$split" --checkpoint x.ckpt --threads "$threads" \
    --progress plain "$@" > out.txt 2> err.txt &
pid=$!
leaves() { if [ -f x.ckpt.leaves ]; then wc -l < x.ckpt.leaves; else echo 0; fi; }
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
t0=$(date +%s)
# the file's header line and three leaves
while [ "$(leaves)" -lt 4 ]; do
    kill -0 "$pid" 2> /dev/null || { echo "the count ended before three leaves" >&2; exit 1; }
    sleep 1
done
t1=$(date +%s); n1=$(leaves); c1=$(cpu)
sleep 120
n2=$(leaves); c2=$(cpu)
kill -INT "$pid"; wait "$pid" || true
echo "threads $threads: path and first leaves $((t1 - t0)) s; $((n2 - n1)) leaves in 120 s; CPU $(((c2 - c1) / $(getconf CLK_TCK))) s"
