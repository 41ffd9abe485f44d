#!/usr/bin/env bash
# Counts a board in shards on a Slurm cluster: the one this machine belongs to, or else a
# one-node cluster started here for the run and stopped after it.
#
#   scripts/slurm-local.sh BOARD [count options] --shards N
#   e.g. scripts/slurm-local.sh 7x8 --closed --shards 8
#
# Each shard is a task of one job array (`knights count BOARD ... --shard K/N`), with its own
# checkpoint in the run folder and the split all shards share (`--split`); the script waits
# for the array, merges the checkpoints (`knights merge`) and prints the total as `knights
# count` does (`--json`: as JSON). Running it again resumes: finished shards return at once.
#
# Environment: RUN_DIR (the run folder; default knights-run-BOARD-N here), KNIGHTS (the binary;
# default this checkout's release build), SHARD_THREADS (threads a task, default 1), SHARD_MEM
# (memory a task asks for, e.g. 4G; default none), SLURM_CONF (a cluster to use).
#
# With no cluster running, it installs Debian's slurm-wlm and munge with apt when they are
# missing (as root), starts munged, slurmctld and slurmd as root from a generated slurm.conf
# in RUN_DIR/slurm (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none: what a container
# allows), and stops them by their process ids at the end, whatever the outcome.
set -euo pipefail
SCRIPT=slurm-local.sh
. "$(dirname "$0")/lib.sh"
knights_args "$@"
knights_binary
knights_run_dir

STARTED=()
stop_daemons() {
    local pid
    for pid in "${STARTED[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${STARTED[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
}
trap stop_daemons EXIT

cluster_up() {
    command -v scontrol >/dev/null 2>&1 && scontrol ping 2>/dev/null | grep -q "is UP"
}

start_cluster() {
    for tool in sbatch slurmctld slurmd munged; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            if [ "$(id -u)" -ne 0 ]; then
                echo "$SCRIPT: $tool is missing; install slurm-wlm and munge (as root: apt-get install slurm-wlm munge)" >&2
                exit 2
            fi
            echo "$SCRIPT: installing slurm-wlm and munge with apt" >&2
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >&2
            break
        fi
    done
    if [ "$(id -u)" -ne 0 ]; then
        echo "$SCRIPT: no Slurm cluster is running, and starting one here needs root" >&2
        exit 2
    fi
    local dir="$RUN/slurm" host
    host="$(hostname)"
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
    chmod 700 "$dir/munge"
    if [ ! -f "$dir/munge/munge.key" ]; then
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
        chmod 400 "$dir/munge/munge.key"
    fi
    munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
        --seed-file="$dir/munge/munged.seed"
    STARTED+=("$(cat "$dir/munge/munged.pid")")
    # memory is not a consumable resource here: tasks share the node's by what they ask
    cat > "$dir/slurm.conf" <<CONF
ClusterName=knights
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$dir/slurm.conf"
    rm -f "$dir/slurmctld.pid" "$dir/slurmd.pid"
    slurmctld -f "$SLURM_CONF" -i
    slurmd -f "$SLURM_CONF"
    for _ in $(seq 100); do
        [ -s "$dir/slurmctld.pid" ] && [ -s "$dir/slurmd.pid" ] && break
        sleep 0.1
    done
    STARTED+=("$(cat "$dir/slurmd.pid")" "$(cat "$dir/slurmctld.pid")")
    for _ in $(seq 100); do
        sinfo -h -o %t 2>/dev/null | grep -q idle && return 0
        sleep 0.2
    done
    echo "$SCRIPT: the Slurm cluster started in $dir did not come up (see its logs)" >&2
    exit 1
}

cluster_up || start_cluster

# one command a shard, K from the array's task id
{
    echo '#!/usr/bin/env bash'
    echo 'case "$SLURM_ARRAY_TASK_ID" in'
    for ((k = 0; k < SHARDS; k++)); do
        echo "  $k) exec $(knights_shard_command "$k") --threads ${SHARD_THREADS:-1} ;;"
    done
    echo 'esac'
} > "$RUN/shard.sh"
chmod +x "$RUN/shard.sh"
mem=()
[ -n "${SHARD_MEM:-}" ] && mem=(--mem "$SHARD_MEM")
code=0
sbatch --wait --quiet --array="0-$((SHARDS - 1))" --cpus-per-task="${SHARD_THREADS:-1}" \
    "${mem[@]}" --job-name="knights-$BOARD" --chdir="$RUN" \
    --output="$RUN/shard-%a.log" "$RUN/shard.sh" || code=$?
if [ "$code" -ne 0 ]; then
    echo "$SCRIPT: some shards failed (exit $code); their logs are $RUN/shard-K.log" >&2
fi
knights_merge
