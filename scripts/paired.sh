#!/usr/bin/env bash
# Times two commands in turn, A B A B ..., and prints each one's median wall and CPU seconds
# and the median of the pairs' ratios A/B: pairing keeps a ratio honest on a machine whose
# speed drifts (a shared VM), where two separate series would not.
#
#   scripts/paired.sh N 'COMMAND_A' 'COMMAND_B'
#   scripts/paired.sh 3 'knights count 6x30 --closed -q' 'knights-old count 6x30 --closed -q'
#
# Each command is one string split as the shell splits words; its output is thrown away. CPU
# is user + system time, as /usr/bin/time gives it for the finished command.
set -euo pipefail

if [[ $# -ne 3 || ! $1 =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 RUNS 'COMMAND_A' 'COMMAND_B'" >&2
    exit 2
fi
runs=$1
a=$2
b=$3
[[ -x /usr/bin/time ]] || { echo "$0: needs /usr/bin/time (GNU time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one run of command $1, its "wall cpu" appended to file $2
one() {
    # shellcheck disable=SC2086 # the command is split as words on purpose
    /usr/bin/time -f "%e %U %S" -o "$tmp/t" $1 >/dev/null 2>&1 || {
        echo "$0: '$1' failed" >&2
        exit 1
    }
    awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$tmp/t" >>"$2"
}

for ((i = 1; i <= runs; i++)); do
    one "$a" "$tmp/a"
    one "$b" "$tmp/b"
    paste -d' ' <(tail -1 "$tmp/a") <(tail -1 "$tmp/b") |
        awk -v i="$i" '{ printf "pair %d: A %.3f s wall %.3f s cpu, B %.3f s wall %.3f s cpu\n", i, $1, $2, $3, $4 }'
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } m = int((NR + 1) / 2); if (NR % 2) print v[m]; else print (v[m] + v[m + 1]) / 2 }'; }
for c in a b; do
    label=$(tr 'ab' 'AB' <<<"$c")
    printf '%s wall %.3f s, cpu %.3f s (median of %d)\n' "$label" \
        "$(cut -d' ' -f1 "$tmp/$c" | median)" "$(cut -d' ' -f2 "$tmp/$c" | median)" "$runs"
done
paste -d' ' "$tmp/a" "$tmp/b" >"$tmp/ab"
ratio() { awk -v x="$1" -v y="$2" '{ if ($y > 0) print $x / $y }' "$tmp/ab" | median; }
printf 'A/B wall %s, cpu %s (median of the pairs'"'"' ratios)\n' "$(ratio 1 3)" "$(ratio 2 4)"
