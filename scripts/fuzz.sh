#!/bin/sh
# Run the libFuzzer harnesses built in BUILD (make fuzz-build), each for
# SECONDS, one after the other on one core (docs/fuzzing.md).
#   scripts/fuzz.sh BUILD SECONDS [NAME...]
# Each harness starts from its seeds (fuzz/corpus/NAME) and past crashes
# (fuzz/crashes/NAME), with its dictionary (fuzz/dict/NAME.dict) when
# there is one. New inputs go to BUILD/fuzz-corpus/NAME, crash inputs to
# BUILD/fuzz-artifacts/NAME/, logs to BUILD/fuzz-logs/NAME.log, and one
# line of figures per harness (seconds, runs, exec/s, coverage, features,
# corpus) to BUILD/fuzz-summary.txt. Exit status 1 when any harness
# found a crash. FUZZ_ARGS adds libFuzzer options (e.g. "-fork=1
# -ignore_crashes=1" to go on past a known crash).
set -u
export LC_ALL=C # the logs hold raw bytes

if [ $# -lt 2 ]; then
	echo "usage: scripts/fuzz.sh BUILD SECONDS [NAME...]" >&2
	exit 2
fi
B=$1
S=$2
shift 2
SRC=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
	set -- $(cd "$B/fuzz" && ls fuzz_* 2>/dev/null | sed -n 's/^fuzz_//p')
fi
if [ $# -eq 0 ]; then
	echo "fuzz.sh: no harness in $B/fuzz (run make fuzz-build)" >&2
	exit 2
fi

mkdir -p "$B/fuzz-logs" "$B/fuzz-corpus" "$B/fuzz-artifacts"
SUM=$B/fuzz-summary.txt
printf '%-14s %8s %10s %8s %7s %7s %7s %s\n' harness seconds runs exec/s \
	cov ft corpus result >"$SUM"
failed=0
for name in "$@"; do
	bin=$B/fuzz/fuzz_$name
	[ -x "$bin" ] || { echo "fuzz.sh: no $bin" >&2; failed=1; continue; }
	work=$B/fuzz-corpus/$name
	art=$B/fuzz-artifacts/$name
	log=$B/fuzz-logs/$name.log
	mkdir -p "$work" "$art"
	dict=
	[ -f "$SRC/fuzz/dict/$name.dict" ] && dict=-dict=$SRC/fuzz/dict/$name.dict
	crashes=
	[ -d "$SRC/fuzz/crashes/$name" ] && crashes=$SRC/fuzz/crashes/$name
	echo "fuzz: $name for ${S}s" >&2
	start=$(date +%s)
	# shellcheck disable=SC2086
	nice "$bin" -max_total_time="$S" -timeout=20 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$art/" \
		${FUZZ_ARGS:-} $dict "$work" "$SRC/fuzz/corpus/$name" $crashes \
		>"$log" 2>&1
	rc=$?
	end=$(date +%s)
	# The last status line: "#N DONE cov: C ft: F corp: K/..b ... exec/s: E"
	line=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	runs=$(echo "$line" | sed -n 's/^#\([0-9]*\).*/\1/p')
	cov=$(echo "$line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$line" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
	eps=$(grep -E 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
	if [ "$rc" -eq 0 ]; then
		result=ok
	else
		result="CRASH (see $log)"
		failed=1
	fi
	printf '%-14s %8s %10s %8s %7s %7s %7s %s\n' "$name" \
		"$((end - start))" "${runs:-?}" "${eps:-?}" "${cov:-?}" \
		"${ft:-?}" "${corp:-?}" "$result" >>"$SUM"
done
cat "$SUM"
exit $failed
