#!/usr/bin/env bash
# Times frontier counts under several memory bounds: wall and CPU time (user + system) and peak
# resident memory by GNU time, the pieces and leaves the count reports, its answer. Appends one
# CSV line a run to results/bounds.csv (made with its header when missing).
#
#   scripts/measure-bounds.sh "7x7" "7x8" "8x8 --closed" -- default 4G 2G 1G 512M 256M
#
# `default` is the engine's own bound (three quarters of the machine's memory). Each count is
# run alone: stop other work first. KNIGHTS names the binary (default target/release/knights), OUT
# the CSV file (default results/bounds.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
K=${KNIGHTS:-target/release/knights}
OUT=${OUT:-results/bounds.csv}
boards=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do boards+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
bounds=("$@")
[ -f "$OUT" ] || echo "count,bound_mib,wall_s,cpu_s,peak_mib,pieces,leaves,directed,machine" > "$OUT"
machine="$(nproc) cores $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
for b in "${boards[@]}"; do
  for m in "${bounds[@]}"; do
    args=(count $b --json --quiet)
    mib=default
    if [ "$m" != default ]; then
      args+=(--max-memory "$m")
      mib=$(numfmt --from=iec "${m}" | awk '{printf "%.0f", $1/1048576}')
    fi
    t=$(mktemp)
    if /usr/bin/time -f "%e %U %S %M" -o "$t" "$K" "${args[@]}" > "$t.json" 2> "$t.err"; then
      read -r wall user sys kib < <(tail -1 "$t")
      python3 - "$t.json" "$b" "$mib" "$wall" "$user" "$sys" "$kib" "$machine" >> "$OUT" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
b, mib, wall, user, sys_, kib, machine = sys.argv[2:]
leaves = re.search(r"([\d,]+) leaves", j.get("how", ""))
leaves = leaves.group(1).replace(",", "") if leaves else ""
print(f"{b},{mib},{float(wall):.2f},{float(user)+float(sys_):.2f},{int(kib)/1024:.0f},{j.get('pieces','')},{leaves},{j['directed']},{machine}")
PY
    else
      echo "$b,$mib,,,,,,stopped: $(tail -1 "$t.err" | tr ',' ';'),$machine" >> "$OUT"
    fi
    tail -1 "$OUT"
    rm -f "$t" "$t.json" "$t.err"
  done
done
