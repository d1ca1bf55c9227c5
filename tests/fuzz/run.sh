#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Fuzz layer: build the libFuzzer targets of tests/fuzz/ with clang
# (ASan + UBSan), regenerate the seed corpus, and run each target for
# SECONDS (default 20, as in make check; `make fuzz FUZZ_SECONDS=600` for
# longer), one worker each.
#
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
#
# Prints one line per target for tests/run-all.sh:
#	PASS fuzz/<target>   or   FAIL fuzz/<target>
# and "FAIL fuzz/build" if the targets do not build.  Everything else is a
# "# " comment.  Under build/fuzz/ (git-ignored):
#	seeds/<target>/		the generated seed corpus (rewritten each run)
#	corpus/<target>/	the corpus libFuzzer grows; kept between runs
#	crashes/<target>-*	crash, leak, timeout and OOM inputs
#	logs/<target>.log	the full output of the last run
# A failure prints the input's path and the command that replays it.
# Needs root for fuzz_decode (file handles, a private tmpfs export).
#
# Environment: CLANG (default clang), ORFS_FUZZ_SEED (libFuzzer -seed;
# default random, printed), ORFS_FUZZ_ARGS (more libFuzzer options).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
build=$repo/build/fuzz
all_targets=(fuzz_decode fuzz_proto fuzz_reply fuzz_client fuzz_connect)

secs=${1:-20}
case $secs in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS] [TARGET...]   (targets: ${all_targets[*]})" >&2
	exit 2 ;;
esac
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")

mkdir -p "$build/crashes" "$build/corpus" "$build/logs" "$build/tmp"
if ! make -s -j2 -C "$here" >"$build/logs/build.log" 2>&1; then
	sed 's/^/# /' "$build/logs/build.log"
	echo "FAIL fuzz/build"
	exit 1
fi
rm -rf "$build/seeds"
mkdir -p "${all_targets[@]/#/$build/seeds/}"
if ! "$build/gen_corpus" "$build/seeds" >"$build/logs/seeds.log" 2>&1; then
	sed 's/^/# /' "$build/logs/seeds.log"
	echo "FAIL fuzz/seeds"
	exit 1
fi
echo "# $(cat "$build/logs/seeds.log")"

# Sanitizer reports are what libFuzzer turns into crashes; keep them whole.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# fuzz_decode makes its mount point here (the tmpfs itself is private).
export TMPDIR=$build/tmp

failed=0
for t in "${targets[@]}"; do
	bin=$build/$t
	log=$build/logs/$t.log
	if [ ! -x "$bin" ]; then
		echo "# no such target: $t"
		echo "FAIL fuzz/$t"
		failed=1
		continue
	fi
	if [ "$t" = fuzz_decode ] && [ "$(id -u)" -ne 0 ]; then
		echo "# $t needs root (file handles, a private tmpfs export)"
		echo "FAIL fuzz/$t"
		failed=1
		continue
	fi
	# fuzz_decode: what a receive buffer holds (ORFS_META_MAX + inline 4096)
	maxlen=8192
	[ "$t" = fuzz_decode ] && maxlen=5120
	mkdir -p "$build/corpus/$t"
	stamp=$build/logs/$t.stamp
	: >"$stamp"
	args=(
		-max_total_time="$secs"
		-timeout=10
		-rss_limit_mb=2048
		-max_len="$maxlen"
		-print_final_stats=1
		-artifact_prefix="$build/crashes/$t-"
		-dict="$here/$t.dict"
	)
	[ -n "${ORFS_FUZZ_SEED:-}" ] && args+=(-seed="$ORFS_FUZZ_SEED")
	# shellcheck disable=SC2206
	[ -n "${ORFS_FUZZ_ARGS:-}" ] && args+=(${ORFS_FUZZ_ARGS})
	echo "# $t: ${secs}s, one worker"
	"$bin" "${args[@]}" "$build/corpus/$t" "$build/seeds/$t" >"$log" 2>&1
	rc=$?

	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
	seed=$(sed -n 's/^INFO: Seed: //p' "$log" | head -n 1)
	mapfile -t found < <(find "$build/crashes" -maxdepth 1 -type f \
		-name "$t-*" -newer "$stamp" 2>/dev/null | sort)
	echo "# $t: ${runs:-?} runs (${speed:-?}/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, seed ${seed:-?}"
	if [ "$rc" -eq 0 ] && [ ${#found[@]} -eq 0 ]; then
		echo "PASS fuzz/$t"
		continue
	fi
	failed=1
	echo "# $t exited with status $rc; the end of $log:"
	tail -n 80 "$log" | sed 's/^/# /'
	for f in "${found[@]}"; do
		echo "# crash input: $f"
		echo "# replay: TMPDIR=$build/tmp $bin $f"
	done
	[ ${#found[@]} -eq 0 ] && echo "# no input was saved (see $log)"
	echo "FAIL fuzz/$t"
done
rmdir "$build/tmp"/orfs-fuzz.* 2>/dev/null
exit $failed
