#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for CI: start munged, slurmctld and slurmd
# for localhost (no systemd), submit the shipped array script with `sbatch --wait`, merge the
# shards and compare them with the unsharded run byte for byte.
#
#   scripts/slurm-ci.sh [SPECPROBE_BINARY]
#
# With SLURM_CI_PYTHON set to a Python that has submitit, the submitit recipe
# (scripts/submitit-shards.py) is submitted to the same cluster and compared too.
#
# Needs Debian's slurm-wlm and munge; when they are missing and apt-get can run, installs them
# (as root). Set SLURM_CI=skip to skip, SLURM_CI=require to fail rather than skip when Slurm
# cannot be installed. Every daemon runs from a private folder under $TMPDIR with its own
# slurm.conf and munge key, and is stopped on exit; nothing under /etc is changed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
specprobe=${1:-$here/target/debug/specprobe}
mode=${SLURM_CI:-auto}
[ "$mode" = skip ] && { echo "slurm-ci: skipped (SLURM_CI=skip)"; exit 0; }

cannot() {
    if [ "$mode" = require ]; then
        echo "slurm-ci: $1" >&2
        exit 1
    fi
    echo "slurm-ci: skipped: $1 (SLURM_CI=require makes this an error)"
    exit 0
}

# slurmd starts jobs as their users, so it runs as root (SlurmdUser=root below).
[ "$(id -u)" = 0 ] || cannot "slurmd needs root and this script runs as $(id -un)"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    if command -v apt-get >/dev/null; then
        echo "slurm-ci: installing slurm-wlm and munge"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null 2>&1 ||
            { apt-get update -q >/dev/null 2>&1 &&
                DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null 2>&1; } ||
            cannot "apt-get could not install slurm-wlm and munge"
    else
        cannot "slurmctld or munged is not installed and there is no apt-get"
    fi
fi
[ -x "$specprobe" ] || { echo "slurm-ci: no binary at $specprobe (run cargo build first)" >&2; exit 1; }
specprobe=$(cd "$(dirname "$specprobe")" && pwd)/$(basename "$specprobe")
python=${SLURM_CI_PYTHON:-}
# Absolute, as the jobs run elsewhere (a venv's python keeps its bin/ path: no symlink resolved).
[ -z "$python" ] || python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python")

work=$(mktemp -d "${TMPDIR:-/tmp}/specprobe-slurm.XXXXXX")
chmod 755 "$work"
pids=()
stop() {
    for pid in "${pids[@]}"; do [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; done
    # The daemons are not this shell's children (they daemonise), so `wait` does not wait for them: slurmctld
    # saves its state on SIGTERM, and a removal racing that write failed CI ("state: Directory not empty").
    # Wait up to 20 s for each to exit, then remove; the clean-up never turns a passed check into a failure.
    for pid in "${pids[@]}"; do
        for _ in $(seq 100); do { [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; } || break; sleep 0.2; done
    done
    wait 2>/dev/null || true
    for _ in 1 2 3 4 5; do rm -rf "$work" 2>/dev/null && break; sleep 1; done
    [ ! -e "$work" ] || echo "slurm-ci: could not remove $work (left behind)" >&2
    return 0
}
trap stop EXIT

# munge: a fresh key, its own socket, run as the current user (--force: root is allowed here).
mkdir -p "$work/munge"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --force --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
    --seed-file="$work/munge/munged.seed"
pids+=("$(cat "$work/munge/munged.pid")")

# Slurm: one node with what this machine has (the array script asks for nothing more).
node=$(hostname -s)
cpus=$(nproc)
memory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2))
user=$(id -un)
mkdir -p "$work/state" "$work/spool" "$work/log"
cat >"$work/slurm.conf" <<EOF
ClusterName=specprobe-ci
SlurmctldHost=$node
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
SlurmctldPort=${SLURM_CI_PORT:-16817}
SlurmdPort=$((${SLURM_CI_PORT:-16817} + 1))
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -c -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 60); do
    [ -f "$work/slurmctld.pid" ] && [ -f "$work/slurmd.pid" ] && break
    sleep 0.5
done
pids+=("$(cat "$work/slurmctld.pid" 2>/dev/null || true)" "$(cat "$work/slurmd.pid" 2>/dev/null || true)")
up=
for _ in $(seq 1 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -q -E '^(idle|mixed)'; then up=1; break; fi
    sleep 0.5
done
if [ -z "$up" ]; then
    sinfo -N -l || true
    tail -n 20 "$work/log/slurmctld.log" "$work/log/slurmd.log" >&2 || true
    echo "slurm-ci: the node did not come up" >&2
    exit 1
fi
echo "slurm-ci: cluster up ($node, $cpus CPUs)"

# The shipped array script, as a user submits it, then merge; the unsharded run beside it.
scenario=$here/scenarios/paper-fig1a.ron
shards=3
args=(--runs 6 --horizon 2000 --no-charts)
cd "$work"
SPECPROBE=$specprobe timeout 300 \
    sbatch --wait --quiet --array=0-$((shards - 1)) --output="$work/log/task-%a.out" \
    "$here/scripts/slurm-array.sh" "$scenario" "$shards" "$work/shards" "${args[@]}" ||
    { cat "$work"/log/task-*.out >&2 || true; echo "slurm-ci: the array job failed" >&2; exit 1; }
"$specprobe" merge "$work"/shards/* --out "$work/merged" --no-charts >/dev/null
"$specprobe" run "$scenario" "${args[@]}" --out "$work/whole" >/dev/null
for file in summary.json curves.csv runs.csv; do
    cmp "$work/merged/$file" "$work/whole/$file" ||
        { echo "slurm-ci: $file of the merged shards differs from the unsharded run" >&2; exit 1; }
done
echo "slurm-ci: $shards array tasks merged = the unsharded run, byte for byte"

# The submitit recipe on the same cluster, when a Python with submitit is given.
if [ -n "$python" ]; then
    SPECPROBE=$specprobe timeout 300 "$python" "$here/scripts/submitit-shards.py" \
        "$scenario" "$shards" "$work/submitit" --cluster slurm --timeout-min 5 -- "${args[@]}" \
        >"$work/log/submitit.log" 2>&1 ||
        { cat "$work/log/submitit.log" "$work"/submitit.logs/*.err >&2 || true
          echo "slurm-ci: the submitit recipe failed" >&2; exit 1; }
    for file in summary.json curves.csv runs.csv; do
        cmp "$work/submitit/$file" "$work/whole/$file" ||
            { echo "slurm-ci: $file of the submitit run differs from the unsharded run" >&2; exit 1; }
    done
    echo "slurm-ci: submitit's $shards tasks merged = the unsharded run, byte for byte"
fi
