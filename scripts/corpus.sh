#!/usr/bin/env bash
# The behaviour corpus of a build: what a restructuring must leave unchanged.
#
#   scripts/corpus.sh OUT [KNIGHTS]        # OUT: a folder (made), KNIGHTS: the binary
#   diff -r OUT-before OUT-after           # nothing: the same counts and the same tours
#
# Writes, one file a command (its name the command's words):
# - counts/: `count --json` of every row of tests/data/counts.tsv's fast tier through each
#   engine (auto and frontier; dfs up to 36 squares, naive up to 20), the timing and the memory the
#   allocator happened to hold taken out; a refusal is kept as its exit code and message;
# - tours/: the tours of fixed seeds, byte for byte: `sample` 6x6 closed, 6x8 closed, 5x8 open,
#   7x7 open and 8x8 closed, 200 of each, as they are, under --max-memory 1G, and (6x8 closed,
#   7x7 open) with --leaves and --nodes written and then read back.
# `KNIGHTS_CORPUS_QUICK=1` leaves out 8x8 closed (the two runs of minutes).
set -euo pipefail
out=${1:?usage: scripts/corpus.sh OUT [KNIGHTS]}
knights=${2:-knights}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/counts" "$out/tours"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# the fields of a count that vary from run to run: its time and the bytes its tables held
strip() { sed -E 's/"(seconds|peak_bytes|disk_peak_bytes|disk_written_bytes)":[0-9.e+-]+,?//g'; }

run_count() {
    local file=$1
    shift
    local code=0
    "$knights" count "$@" --json --threads 2 >"$file.out" 2>"$file.err" || code=$?
    { echo "exit $code"; strip <"$file.out"; grep -v '^note:' "$file.err" || true; } >"$file"
    rm -f "$file.out" "$file.err"
}

grep -v '^#' "$here/tests/data/counts.tsv" | awk -F'\t' '$8 == "fast" { print $1, $2, $3, $4, $5 }' |
    sort -u | while read -r board piece kind from to; do
    args=("$board" --piece "$piece")
    [ "$kind" = closed ] && args+=(--closed)
    [ "$from" != - ] && args+=(--from "$from")
    [ "$to" != - ] && args+=(--to "$to")
    squares=$(( ${board%x*} * ${board#*x} ))
    engines=(auto frontier)
    # the DFS past 36 squares runs for hours on some boards (5x10 open), naive past 20
    [ "$squares" -le 36 ] && engines+=(dfs)
    [ "$squares" -le 20 ] && engines+=(naive)
    for e in "${engines[@]}"; do
        run_count "$out/counts/$board-$piece-$kind-$from-$to-$e" "${args[@]}" --engine "$e"
    done
done

sample() {
    local name=$1
    shift
    "$knights" sample "$@" -n 200 --seed 7 -j 2 >"$out/tours/$name"
}

boards=("6x6 --closed" "6x8 --closed" "5x8" "7x7")
[ -z "${KNIGHTS_CORPUS_QUICK:-}" ] && boards+=("8x8 --closed")
for b in "${boards[@]}"; do
    name=${b// /}
    # shellcheck disable=SC2086
    sample "$name" $b
    # shellcheck disable=SC2086
    sample "$name-1G" $b --max-memory 1G
done
for b in "6x8 --closed" "7x7"; do
    name=${b// /}
    # shellcheck disable=SC2086
    sample "$name-leaves-written" $b --tables meet --leaves "$scratch/$name.leaves"
    # shellcheck disable=SC2086
    sample "$name-leaves-read" $b --tables meet --leaves "$scratch/$name.leaves"
    # shellcheck disable=SC2086
    sample "$name-nodes-written" $b --tables meet --nodes "$scratch/$name.nodes"
    # shellcheck disable=SC2086
    sample "$name-nodes-read" $b --tables meet --nodes "$scratch/$name.nodes"
done
echo "corpus of $("$knights" --version) in $out: $(find "$out" -type f | wc -l) files"
