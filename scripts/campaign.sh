#!/usr/bin/env bash
# Counts a long count piece by piece into a ledger in the repository (default: the open tours of
# 8x8 into results/open8/), at low priority, so that it can be left running beside other work,
# stopped at any moment and started again here or on another machine with the repository alone.
#
#   scripts/campaign.sh [--hours H] [--board "8x8"] [--ledger DIR] [--work DIR]
#                       [--max-memory SIZE] [--threads N] [--no-commit]
#   scripts/campaign.sh --verify N [--quarters | --quarter Q[,Q...]] [--board ...] [--ledger DIR]
#                       [--max-memory SIZE] [--record FILE]
#
# The count skips every piece the ledger holds (`knights count --ledger DIR`), writes each piece
# it finishes there at once (one small file a piece: its count, the cut's fingerprint, the
# program's version and commit, the machine, wall and CPU time and peak memory, a checksum), and
# keeps its work in progress beside a checkpoint in the work folder (default
# ~/.cache/knights-campaign/BOARD, outside the repository: the split file there is gigabytes and
# is made again where it is missing). A stop (Ctrl-C, SIGTERM, the end of --hours) saves the piece
# in progress; a kill -9 loses at most the part since its last save. Unless --no-commit, the
# ledger is committed to git every 10 minutes and at the end.
#
# --verify N counts N pieces drawn at random from the ledger again, together in one run of their
# own (`--only K,...`, with a fresh checkpoint, reading the campaign's shared split where the
# work folder has it, under --max-memory if given), compares each with its record and appends
# the result to results/eight.md (or --record FILE) as a table row (exit 1 on a difference).
# With --quarters it draws N from each quarter of the cut's pieces (numbered 0 to UNITS-1) that
# the ledger holds pieces of, so one run checks the whole ledger, early pieces and late;
# --quarter Q (0 to 3, or several: 2,3) draws N from each quarter named alone (for instance those
# not checked yet).
#
# KNIGHTS names the binary (default: target/release/knights, built when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

board="8x8"
ledger="results/open8"
work=""
hours=""
mem=()
threads=()
commit=1
verify=0
quarters=0
only_quarter=""
record=results/eight.md
while [ $# -gt 0 ]; do
    case "$1" in
        --hours) hours="$2"; shift 2 ;;
        --board) board="$2"; shift 2 ;;
        --ledger) ledger="$2"; shift 2 ;;
        --work) work="$2"; shift 2 ;;
        --max-memory) mem=(--max-memory "$2"); shift 2 ;;
        --threads) threads=(--threads "$2"); shift 2 ;;
        --no-commit) commit=0; shift ;;
        --verify) verify="$2"; shift 2 ;;
        --record) record="$2"; shift 2 ;;
        --quarters) quarters=1; shift ;;
        --quarter) quarters=1; only_quarter="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "campaign.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if [ -n "$hours" ] && ! [[ "$hours" =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "campaign.sh: --hours '$hours' is not a number of hours" >&2
    exit 2
fi
if [ -n "$only_quarter" ] && ! [[ "$only_quarter" =~ ^[0-3](,[0-3])*$ ]]; then
    echo "campaign.sh: --quarter '$only_quarter' is not a quarter (0, 1, 2 or 3) or a list of them (2,3)" >&2
    exit 2
fi
if ! [[ "$verify" =~ ^[0-9]+$ ]]; then
    echo "campaign.sh: --verify '$verify' is not a whole number" >&2
    exit 2
fi
if [ "$quarters" = 1 ] && [ "$verify" = 0 ]; then
    echo "campaign.sh: --quarters and --quarter choose the pieces of --verify N; give --verify N" >&2
    exit 2
fi

K=${KNIGHTS:-target/release/knights}
if [ ! -x "$K" ]; then
    cargo build --release --locked
fi
slug=$(echo "$board" | tr -c 'A-Za-z0-9\n' '_')
work=${work:-${XDG_CACHE_HOME:-$HOME/.cache}/knights-campaign/$slug}
mkdir -p "$work" "$ledger"
read -r -a count_args <<< "$board"

commit_ledger() {
    [ "$commit" = 1 ] || return 0
    git rev-parse --git-dir >/dev/null 2>&1 || return 0
    git add -- "$ledger" 2>/dev/null || return 0
    if ! git diff --cached --quiet -- "$ledger"; then
        local n
        n=$(find "$ledger" -name '*.log' | wc -l)
        git commit -q -m "Ledger of $board: $n pieces counted" -- "$ledger" || true
    fi
}

if [ "$verify" -gt 0 ]; then
    # every record: "piece COUNT" (the first line after each file's header's crc line)
    mapfile -t records < <(for f in "$ledger"/piece-*.log; do
        [ -f "$f" ] && sed -n '/^crc /,$p' "$f" | sed -n 2p | awk '{print $1, $2}'
    done)
    [ "${#records[@]}" -gt 0 ] || { echo "campaign.sh: the ledger '$ledger' holds no pieces" >&2; exit 2; }
    if [ "$quarters" = 1 ]; then
        units=$(find "$ledger" -name 'piece-*.log' | head -1 | xargs sed -n 's/^units //p')
        picks=()
        named=${only_quarter:-0,1,2,3}
        for q in ${named//,/ }; do
            mapfile -t -O "${#picks[@]}" picks < <(printf '%s\n' "${records[@]}" |
                awk -v q="$q" -v u="$units" '$1 * 4 >= q * u && $1 * 4 < (q + 1) * u' | shuf -n "$verify")
        done
    else
        mapfile -t picks < <(printf '%s\n' "${records[@]}" | shuf -n "$verify")
    fi
    only=$(printf '%s\n' "${picks[@]}" | awk '{print $1}' | sort -n | paste -sd, -)
    v=$(mktemp -d "$work/verify.XXXXXX")
    start=$(date +%s)
    # the campaign's shared part where it is there (8x8 open: 15 minutes to make again)
    split=()
    if [ -f "$work/run.ckpt.split" ]; then split=(--split "$work/run.ckpt.split"); fi
    nice -n 19 "$K" count "${count_args[@]}" --only "$only" --checkpoint "$v/v.ckpt" \
        --force --quiet "${split[@]}" "${mem[@]}" "${threads[@]}" > /dev/null
    secs=$(( $(date +%s) - start ))
    bad=0
    bound=${mem[1]:-default}
    machine="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
    for r in "${picks[@]}"; do
        read -r piece recorded <<< "$r"
        again=$(awk -v k="$piece" '$1 == k && NF >= 3 {print $2}' "$v/v.ckpt" | head -1)
        ok="✓ same"
        if [ "$again" != "$recorded" ]; then ok="✗ DIFFERENT"; bad=1; fi
        line="| $(date -u +%F) | $piece | $recorded | $again | $bound | $machine | ${secs} s (${#picks[@]} in one run) | $ok |"
        echo "$line"
        echo "$line" >> "$record"
    done
    rm -rf "$v"
    exit "$bad"
fi

pid=""
stop() {
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        pid=""
    fi
    commit_ledger
}
trap 'stop; exit 130' INT TERM
trap 'stop' EXIT

cmd=(nice -n 19 "$K" count "${count_args[@]}" --checkpoint "$work/run.ckpt" --ledger "$ledger"
     --force --progress plain "${mem[@]}" "${threads[@]}")
if [ -n "$hours" ]; then
    secs=$(awk -v h="$hours" 'BEGIN {printf "%d", h * 3600}')
    cmd=(timeout -s TERM "$secs" "${cmd[@]}")
fi
echo "campaign: ${cmd[*]}" >&2
"${cmd[@]}" 2>> "$work/run.log" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 2
    done
    commit_ledger
done
rc=0
wait "$pid" || rc=$?
pid=""
commit_ledger
# 124: the hours ran out (timeout's SIGTERM: the piece in progress is saved); 130: stopped
case "$rc" in
    0) echo "campaign: the count is finished; knights merge $ledger/* prints the total" >&2 ;;
    124|130) echo "campaign: stopped; run the same command to go on" >&2; rc=0 ;;
    *) echo "campaign: the count stopped with exit $rc (see $work/run.log)" >&2 ;;
esac
exit "$rc"
