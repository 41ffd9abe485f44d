#!/usr/bin/env bash
# Sets the frontier engine's projections of counts against what the counts then take: the
# up-front projection (the reach check, from the first columns walked), the digit tree's line
# before the first piece ("projected about T for all on K threads, M of memory at the most"),
# and the count's wall time and peak resident memory by GNU time. Appends one CSV line a count
# to results/estimates.csv (made with its header when missing).
#
#   scripts/measure-estimates.sh "6x6" "7x7 --closed" "5x12"
#
# Each count runs with --force (so that the projection is measured, not obeyed) and alone: stop
# other work first. KNIGHTS names the binary (default target/release/knights), OUT the CSV file
# (default results/estimates.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
K=${KNIGHTS:-target/release/knights}
OUT=${OUT:-results/estimates.csv}
cargo build --release --quiet --example frontier_reach
REACH=target/release/examples/frontier_reach
[ -f "$OUT" ] || echo "count,up_s,up_mib,tree_s,tree_mib,wall_s,peak_mib,directed,machine" > "$OUT"
machine="$(nproc) cores $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
for b in "$@"; do
  read -r board rest <<< "$b"
  kind=open
  [[ "$rest" == *--closed* ]] && kind=closed
  up=$("$REACH" "$board" "$kind")
  t=$(mktemp)
  if /usr/bin/time -f "%e %M" -o "$t" "$K" count $b --engine frontier --force > "$t.json" 2> "$t.err"; then
    python3 - "$t.json" "$t.err" "$t" "$b" "$up" "$machine" >> "$OUT" <<'PY'
import json, re, sys
directed = re.search(r"([\d,]+) directed", open(sys.argv[1]).read()).group(1).replace(",", "")
err = open(sys.argv[2]).read()
wall, kib = open(sys.argv[3]).read().split()[-2:]
b, up, machine = sys.argv[4], json.loads(sys.argv[5]), sys.argv[6]
unit = {"seconds": 1, "second": 1, "minutes": 60, "minute": 60, "hours": 3600, "hour": 3600, "days": 86400, "day": 86400}
size = {"B": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024, "TiB": 2**20}
m = re.search(r"projected about ([\d.]+) (\w+) for .*?, ([\d.]+) (\w+) of memory at the most", err)
tree_s = f"{float(m.group(1)) * unit[m.group(2)]:.1f}" if m else ""
tree_mib = f"{float(m.group(3)) * size[m.group(4)]:.0f}" if m else ""
print(f"{b},{up['seconds']:.1f},{up['bytes'] / 2**20:.0f},{tree_s},{tree_mib},{float(wall):.2f},{int(kib) / 1024:.0f},{directed},{machine}")
PY
  else
    echo "$b,,,,,,,stopped: $(tail -1 "$t.err" | tr ',' ';'),$machine" >> "$OUT"
  fi
  rm -f "$t" "$t.json" "$t.err"
done
