#!/usr/bin/env bash
# Prints a ledger's records as Markdown: the distribution of the pieces' wall time, CPU time and
# peak memory (from the records that carry figures), for a digit tree's pieces the CPU time by
# class (how many of a piece's digits are 1: the boundary squares the path crosses at, which
# sets a piece's cost; `knights status DIR` projects the pieces left by it), then one row a piece.
#
#   scripts/ledger-table.sh [DIR]        (default: results/open8; KNIGHTS names the binary,
#                                         by default the checkout's release build)
#
# It reads the record lines as they are written (`knights count --ledger DIR`): "PIECE COUNT
# TIME key=value... CRC" (the count undirected where the run merges mirror images); `knights
# merge DIR/*` is what checks them and sums them exactly. A record with resumed_parts=N (a piece
# that went on from parts an earlier run counted) has the rest's times only: they are shown
# with "(rest)" and left out of the figures.
set -euo pipefail
dir=${1:-results/open8}
[ -d "$dir" ] || { echo "ledger-table.sh: '$dir' is not a folder" >&2; exit 2; }

# each piece's class, as `knights status DIR --json` gives it ("piece_classes": null where the
# cut has none): the tool is what knows how a cut numbers its pieces
SCRIPT=ledger-table.sh
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
knights_binary
json=$("$KNIGHTS" status "$dir" --json)
classes=$(printf '%s' "$json" | grep -o '"piece_classes":\[[0-9,]*\]' | tr -dc '0-9,' || true)

for f in "$dir"/*.log; do
    # record lines: after the header's crc line, the ones whose first field is a piece number
    sed -n '/^crc /,$p' "$f" | sed -n '2,$p' | awk '$1 ~ /^[0-9]+$/'
done | sort -n -k1,1 | awk -v classes="$classes" '
function fig(key,   i, kv) {
    for (i = 4; i < NF; i++) { split($i, kv, "="); if (kv[1] == key) return kv[2] }
    return ""
}
function commas(n,   s) {
    s = n ""
    while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]([,]|$)/, ",&", s)
    gsub(/,,/, ",", s)
    return s
}
function q(a, n, p,   i) { i = int(p * (n - 1) + 0.5) + 1; return a[i] }
function sorted(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
function row(name, a, n, unit, scale,   i, s) {
    s = 0; for (i = 1; i <= n; i++) s += a[i]
    sorted(a, n)
    printf "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", name, n,
        q(a, n, 0) / scale, q(a, n, 0.25) / scale, q(a, n, 0.5) / scale, q(a, n, 0.9) / scale,
        a[n] / scale, s / n / scale
}
BEGIN {
    # the pieces of the cut by class (none where classes is empty)
    pieces = classes == "" ? 0 : split(classes, cls, ",")
    for (i = 1; i <= pieces; i++) { all[cls[i]]++; if (cls[i] > top) top = cls[i] }
}
function class(p) { return cls[p + 1] }
{
    n++; piece[n] = $1; count[n] = $2
    w = fig("wall_s"); c = fig("cpu_s"); m = fig("peak_mib"); k = fig("commit")
    wall[n] = w; cpu[n] = c; peak[n] = m; commit[n] = k
    # a piece that went on from parts an earlier run counted: its times are of the rest only
    if (fig("resumed_parts") != "") { wall[n] = w " (rest)"; cpu[n] = c " (rest)"; w = ""; c = ""; rest++ }
    if (w != "") { nw++; W[nw] = w; sw += w }
    if (c != "") {
        nc++; C[nc] = c; sc += c
        if (pieces) { k = class($1); cn[k]++; cs[k] += c; if (cn[k] == 1 || c < cmin[k]) cmin[k] = c; if (c > cmax[k]) cmax[k] = c }
    }
    if (m != "") { nm++; M[nm] = m }
    total += $2
}
END {
    printf "%d pieces recorded; %d with wall and CPU time, %d with peak memory; CPU in all %.2f hours, wall %.2f hours", n, nc, nm, sc / 3600, sw / 3600
    if (rest) printf "; %d went on from parts an earlier run counted, their times (the rest only) left out", rest
    printf "\n\n"
    print "| figure | records | least | quarter | median | 9 in 10 under | most | mean |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|"
    if (nw) row("wall (s)", W, nw, "s", 1)
    if (nc) row("CPU (s)", C, nc, "s", 1)
    if (nm) row("peak resident (GiB)", M, nm, "GiB", 1024)
    if (pieces) {
        for (i = 1; i <= n; i++) held[class(piece[i])]++
        print ""
        print "| class (digits 1) | pieces of the cut | recorded | with CPU time | CPU least (s) | CPU mean (s) | CPU most (s) | CPU in all (h) |"
        print "|---:|---:|---:|---:|---:|---:|---:|---:|"
        for (k = 0; k <= top; k++) {
            if (cn[k]) printf "| %d | %d | %d | %d | %.1f | %.1f | %.1f | %.2f |\n", k, all[k], held[k], cn[k], cmin[k], cs[k] / cn[k], cmax[k], cs[k] / 3600
            else printf "| %d | %d | %d | 0 | | | | |\n", k, all[k] + 0, held[k] + 0
        }
    }
    print ""
    print "| piece | class | tours (undirected, as recorded) | wall (s) | CPU (s) | peak (MiB) | commit |"
    print "|---:|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= n; i++)
        printf "| %d | %s | %s | %s | %s | %s | %s |\n", piece[i], pieces ? class(piece[i]) : "", commas(count[i]), wall[i], cpu[i], peak[i], commit[i]
}'
