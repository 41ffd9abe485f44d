#!/usr/bin/env bash
# Times frontier counts under several memory bounds: wall and CPU time (user + system) and peak
# resident memory by GNU time, the pieces and leaves the count reports, the tables the engine
# held at most and the bytes it wrote to disk past the bound, its answer, and which build ran.
# Appends one CSV line a run to results/disk.csv (made with its header when missing;
# results/bounds.csv holds the runs of before the tables went to disk, without the last three
# columns).
#
#   scripts/measure-bounds.sh "7x7" "7x8" "8x8 --closed" -- default 4G 2G 1G 512M 256M
#
# `default` is the engine's own bound (three quarters of the machine's memory). Each count is
# run alone: stop other work first. KNIGHTS names the binary (default target/release/knights),
# BUILD what to call it in the CSV (default: the commit it names in --version), OUT the CSV file
# (default results/disk.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
K=${KNIGHTS:-target/release/knights}
OUT=${OUT:-results/disk.csv}
BUILD=${BUILD:-$("$K" --version | sed -n 's/.*commit \([0-9a-f]*\).*/\1/p')}
boards=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do boards+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
bounds=("$@")
[ -f "$OUT" ] || echo "count,bound_mib,wall_s,cpu_s,peak_mib,pieces,leaves,directed,machine,tables_mib,disk_mib,build" > "$OUT"
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
      python3 - "$t.json" "$b" "$mib" "$wall" "$user" "$sys" "$kib" "$machine" "$BUILD" >> "$OUT" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
b, mib, wall, user, sys_, kib, machine, build = sys.argv[2:]
leaves = re.search(r"([\d,]+) leaves", j.get("how", ""))
leaves = leaves.group(1).replace(",", "") if leaves else ""
mb = lambda k: f"{j[k] / 1048576:.1f}" if k in j else ""
print(f"{b},{mib},{float(wall):.2f},{float(user)+float(sys_):.2f},{int(kib)/1024:.0f},{j.get('pieces','')},{leaves},{j['directed']},{machine},{mb('peak_bytes')},{mb('disk_written_bytes')},{build}")
PY
    else
      echo "$b,$mib,,,,,,stopped: $(tail -1 "$t.err" | tr ',' ';'),$machine,,,$BUILD" >> "$OUT"
    fi
    tail -1 "$OUT"
    rm -f "$t" "$t.json" "$t.err"
  done
done
