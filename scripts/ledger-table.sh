#!/usr/bin/env bash
# Prints a ledger's records as Markdown: the distribution of the pieces' wall time, CPU time and
# peak memory (from the records that carry figures), then one row a piece.
#
#   scripts/ledger-table.sh [DIR]        (default: results/open8)
#
# It reads the record lines as they are written (`knights count --ledger DIR`): "PIECE COUNT
# TIME key=value... CRC" (the count undirected where the run merges mirror images); `knights
# merge DIR/*` is what checks them and sums them exactly.
set -euo pipefail
dir=${1:-results/open8}
[ -d "$dir" ] || { echo "ledger-table.sh: '$dir' is not a folder" >&2; exit 2; }

for f in "$dir"/*.log; do
    # record lines: after the header's crc line, the ones whose first field is a piece number
    sed -n '/^crc /,$p' "$f" | sed -n '2,$p' | awk '$1 ~ /^[0-9]+$/'
done | sort -n -k1,1 | awk '
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
{
    n++; piece[n] = $1; count[n] = $2
    w = fig("wall_s"); c = fig("cpu_s"); m = fig("peak_mib"); k = fig("commit")
    wall[n] = w; cpu[n] = c; peak[n] = m; commit[n] = k
    if (w != "") { nw++; W[nw] = w; sw += w }
    if (c != "") { nc++; C[nc] = c; sc += c }
    if (m != "") { nm++; M[nm] = m }
    total += $2
}
END {
    printf "%d pieces recorded; %d with wall and CPU time, %d with peak memory; CPU in all %.2f hours, wall %.2f hours\n\n", n, nc, nm, sc / 3600, sw / 3600
    print "| figure | records | least | quarter | median | 9 in 10 under | most | mean |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|"
    if (nw) row("wall (s)", W, nw, "s", 1)
    if (nc) row("CPU (s)", C, nc, "s", 1)
    if (nm) row("peak resident (GiB)", M, nm, "GiB", 1024)
    print ""
    print "| piece | tours (undirected, as recorded) | wall (s) | CPU (s) | peak (MiB) | commit |"
    print "|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= n; i++)
        printf "| %d | %s | %s | %s | %s | %s |\n", piece[i], commas(count[i]), wall[i], cpu[i], peak[i], commit[i]
}'
