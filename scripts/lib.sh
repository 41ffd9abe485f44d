# Shared by scripts/slurm-local.sh and scripts/parallel-local.sh (sourced, not run): the
# arguments, the knights binary, the run folder, and the merge at the end.

# knights_args "$@": sets BOARD, SHARDS, COUNT_ARGS (the count options, --shards taken out) and
# JSON (1 when --json was given: the merge prints JSON).
knights_args() {
    BOARD=""
    SHARDS=""
    JSON=0
    COUNT_ARGS=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --shards) SHARDS="${2:-}"; shift 2 || { echo "$SCRIPT: --shards needs a number" >&2; exit 2; } ;;
            --shards=*) SHARDS="${1#--shards=}"; shift ;;
            --json) JSON=1; shift ;;
            --checkpoint|--checkpoint=*|--shard|--shard=*|--split|--split=*)
                echo "$SCRIPT: $1 is set by this script (one checkpoint a shard, one shared split, in the run folder)" >&2
                exit 2 ;;
            -h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
            *) if [ -z "$BOARD" ]; then BOARD="$1"; else COUNT_ARGS+=("$1"); fi; shift ;;
        esac
    done
    if [ -z "$BOARD" ]; then
        echo "$SCRIPT: no board given (usage: $SCRIPT BOARD [count options] --shards N)" >&2
        exit 2
    fi
    case "$SHARDS" in
        ''|*[!0-9]*|0) echo "$SCRIPT: invalid --shards '${SHARDS}' (a whole number from 1 up)" >&2; exit 2 ;;
    esac
}

# knights_binary: sets KNIGHTS: $KNIGHTS if set, else the checkout's release build (built if
# missing), else knights on the PATH.
knights_binary() {
    local root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    if [ -n "${KNIGHTS:-}" ]; then
        :
    elif [ -f "$root/Cargo.toml" ]; then
        if [ ! -x "$root/target/release/knights" ]; then
            echo "$SCRIPT: building knights (cargo build --release)" >&2
            (cd "$root" && cargo build --release --quiet)
        fi
        KNIGHTS="$root/target/release/knights"
    else
        KNIGHTS="$(command -v knights)" || { echo "$SCRIPT: knights not found (set KNIGHTS)" >&2; exit 2; }
    fi
    KNIGHTS="$(cd "$(dirname "$KNIGHTS")" && pwd)/$(basename "$KNIGHTS")"
}

# knights_run_dir: sets RUN, the folder of the run's checkpoints and logs: $RUN_DIR, or
# knights-run-BOARD-SHARDS in the current folder. A run started again in the same folder
# resumes: finished shards return at once, the others go on from their checkpoints.
knights_run_dir() {
    RUN="${RUN_DIR:-$PWD/knights-run-$BOARD-$SHARDS}"
    mkdir -p "$RUN"
    RUN="$(cd "$RUN" && pwd)"
}

# knights_shard_command K: the command that counts shard K (quoted for a shell).
knights_shard_command() {
    local k="$1"
    printf '%q ' "$KNIGHTS" count "$BOARD" "${COUNT_ARGS[@]}" \
        --shard "$k/$SHARDS" --checkpoint "$RUN/shard-$k.ckpt" --split "$RUN/run.split" \
        --quiet --json
}

# knights_merge: puts the shards' checkpoints together and prints the total as count does (exit
# 1 and no total when shards are missing or unfinished, with the shards to run again).
knights_merge() {
    local files=() k missing=()
    for ((k = 0; k < SHARDS; k++)); do
        if [ -f "$RUN/shard-$k.ckpt" ]; then
            files+=("$RUN/shard-$k.ckpt")
        else
            missing+=("$k")
        fi
    done
    if [ ${#files[@]} -eq 0 ]; then
        echo "$SCRIPT: no shard wrote a checkpoint in $RUN (see the logs there)" >&2
        return 1
    fi
    local json=()
    [ "$JSON" = 1 ] && json=(--json)
    local code=0
    "$KNIGHTS" merge "${files[@]}" "${json[@]}" || code=$?
    if [ "$code" -ne 0 ]; then
        echo "$SCRIPT: no total yet; run the same command again to finish the shards that failed (their logs are in $RUN)" >&2
    fi
    return "$code"
}
