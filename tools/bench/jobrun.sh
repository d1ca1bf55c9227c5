#!/bin/bash
# ORFS benchmark: runs one job in its own process (guest.sh starts it under a
# deadline).  Usage: jobrun.sh NAME SYSTEM
# Environment from guest.sh: BENCH_REP, BENCH_* sizes, BENCH_OUT, BENCH_TOP.
set -uo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$BENCH_DIR/lib.sh"
. "$BENCH_DIR/jobs.sh"

name=$1
BENCH_SYS=$2
export BENCH_SYS
case $BENCH_SYS in
orfs) mnt=$BENCH_ORFS_MNT srv=$BENCH_ORFS_EXPORT ;;
orfstf) mnt=$BENCH_ORFSTF_MNT srv=$BENCH_ORFS_EXPORT ;;	# the same export as orfs
nfs) mnt=$BENCH_NFS_MNT srv=$BENCH_NFS_EXPORT ;;
raw) mnt='' srv='' ;;
*) echo "jobrun: unknown system $BENCH_SYS" >&2; exit 2 ;;
esac
declare -F "job_$name" >/dev/null || { echo "jobrun: no function job_$name" >&2; exit 2; }
ctr_snapshot
"job_$name" "$BENCH_SYS" "$mnt" "$srv"
