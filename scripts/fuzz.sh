#!/bin/sh
# Run the libFuzzer harnesses built in BUILD (make fuzz-build), each for
# SECONDS of its own CPU time on one core (docs/fuzzing.md).
#   scripts/fuzz.sh BUILD SECONDS [NAME...]
# Each harness is one process, so it uses one core; FUZZ_JOBS (default 1)
# runs that many harnesses at once. The budget is CPU time, not wall
# time: a harness that shares its core (with a build, or at nice) runs
# until its own process has used SECONDS, then libFuzzer is asked to stop
# (SIGUSR1) and prints its final figures; a wall-clock cap of 4 x SECONDS
# stops one that cannot get the CPU.
# Each harness starts from its seeds (fuzz/corpus/NAME) and past crashes
# (fuzz/crashes/NAME), with its dictionary (fuzz/dict/NAME.dict) when
# there is one. New inputs go to BUILD/fuzz-corpus/NAME, crash inputs to
# BUILD/fuzz-artifacts/NAME/, logs to BUILD/fuzz-logs/NAME.log, and one
# line of figures per harness (CPU and wall seconds, runs, exec/s per CPU
# second, coverage, features, corpus) to BUILD/fuzz-summary.txt. Exit
# status 1 when any harness found a crash. FUZZ_ARGS adds libFuzzer
# options (e.g. "-fork=1 -ignore_crashes=1" to go on past a known crash;
# with -fork the budget counts the parent process only).
set -u
export LC_ALL=C # the logs hold raw bytes

usage() {
	echo "usage: scripts/fuzz.sh BUILD SECONDS [NAME...]" >&2
	exit 2
}

# CPU seconds (user + system) that process $1 has used so far.
cpu_of() {
	# /proc/PID/stat: field 2 is "(comm)", without blanks for these
	# programs; utime and stime are fields 14 and 15, in clock ticks.
	awk -v hz="$HZ" '{ printf "%d\n", ($14 + $15) / hz }' \
		"/proc/$1/stat" 2>/dev/null
}

# One harness: scripts/fuzz.sh --one BUILD SECONDS NAME
one() {
	B=$1 S=$2 name=$3
	bin=$B/fuzz/fuzz_$name
	sum=$B/fuzz-logs/$name.sum
	log=$B/fuzz-logs/$name.log
	if [ ! -x "$bin" ]; then
		echo "fuzz.sh: no $bin" >&2
		printf '%-14s %s\n' "$name" "not built" >"$sum"
		return 1
	fi
	work=$B/fuzz-corpus/$name
	art=$B/fuzz-artifacts/$name
	mkdir -p "$work" "$art"
	dict=
	[ -f "$SRC/fuzz/dict/$name.dict" ] &&
		dict=-dict=$SRC/fuzz/dict/$name.dict
	crashes=
	[ -d "$SRC/fuzz/crashes/$name" ] && crashes=$SRC/fuzz/crashes/$name
	echo "fuzz: $name for ${S} CPU seconds" >&2
	start=$(date +%s)
	# shellcheck disable=SC2086
	nice -n 19 "$bin" -max_total_time="$((S * 4))" -handle_usr1=1 -timeout=20 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$art/" ${FUZZ_ARGS:-} $dict "$work" \
		"$SRC/fuzz/corpus/$name" $crashes >"$log" 2>&1 &
	pid=$!
	cpu=0
	while kill -0 "$pid" 2>/dev/null; do
		c=$(cpu_of "$pid")
		[ -n "$c" ] && cpu=$c
		if [ "$cpu" -ge "$S" ]; then
			kill -USR1 "$pid" 2>/dev/null
			break
		fi
		sleep 2
	done
	wait "$pid"
	rc=$?
	end=$(date +%s)
	# The last status line: "#N DONE cov: C ft: F corp: K/..b ..."
	line=$(grep -aE '^#[0-9]+' "$log" | tail -n 1)
	runs=$(echo "$line" | sed -n 's/^#\([0-9]*\).*/\1/p')
	cov=$(echo "$line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$line" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
	eps=?
	[ -n "$runs" ] && [ "$cpu" -gt 0 ] && eps=$((runs / cpu))
	if [ "$rc" -eq 0 ]; then
		result=ok
	else
		result="CRASH (see $log)"
	fi
	printf '%-14s %6s %6s %11s %8s %6s %6s %6s %s\n' "$name" "$cpu" \
		"$((end - start))" "${runs:-?}" "$eps" "${cov:-?}" \
		"${ft:-?}" "${corp:-?}" "$result" >"$sum"
	[ "$rc" -eq 0 ]
}

SRC=$(cd "$(dirname "$0")/.." && pwd)
HZ=$(getconf CLK_TCK)
if [ "${1:-}" = --one ]; then
	[ $# -eq 4 ] || usage
	one "$2" "$3" "$4"
	exit $?
fi
[ $# -ge 2 ] || usage
B=$1
S=$2
shift 2
case $S in '' | *[!0-9]*) usage ;; esac
if [ $# -eq 0 ]; then
	set -- $(cd "$B/fuzz" && ls fuzz_* 2>/dev/null | sed -n 's/^fuzz_//p')
fi
if [ $# -eq 0 ]; then
	echo "fuzz.sh: no harness in $B/fuzz (run make fuzz-build)" >&2
	exit 2
fi

mkdir -p "$B/fuzz-logs" "$B/fuzz-corpus" "$B/fuzz-artifacts"
for name in "$@"; do
	rm -f "$B/fuzz-logs/$name.sum"
done
printf '%s\n' "$@" |
	xargs -P "${FUZZ_JOBS:-1}" -I{} "$0" --one "$B" "$S" {}
SUM=$B/fuzz-summary.txt
printf '%-14s %6s %6s %11s %8s %6s %6s %6s %s\n' harness cpu_s wall_s \
	runs exec/s cov ft corpus result >"$SUM"
failed=0
for name in "$@"; do
	if [ -f "$B/fuzz-logs/$name.sum" ]; then
		cat "$B/fuzz-logs/$name.sum" >>"$SUM"
		grep -q ' ok$' "$B/fuzz-logs/$name.sum" || failed=1
	else
		printf '%-14s %s\n' "$name" "no result" >>"$SUM"
		failed=1
	fi
done
cat "$SUM"
exit $failed
