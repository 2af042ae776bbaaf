#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench.sh - skit's performance benchmark (`make bench`; see docs/bench.md).
#
#	scripts/bench.sh [BUILD_DIR]
#
# Generates synthetic skill trees (1k, 10k, 100k skills; ~8 KB SKILL.md each)
# under BUILD_DIR/bench-data unless they are already there, then times, in
# one run, each figure next to its baseline:
#
#   raw floor      bench_floor: readdir + open/read 4 KiB/close per SKILL.md
#   floor + yaml   bench_floor --yaml: the same plus libyaml's event parser
#                  over each frontmatter (a reference: the YAML library's
#                  share of the budget)
#   list           skit list --json --root ROOT, warm index cache (vs the floor)
#   list, no cache the same with SKIT_NO_CACHE=1 (bench_run --env)  (vs floor)
#   list, empty cache  the same from an empty cache (bench_run --prep removes
#                  it before each run): the first scan, which writes it
#   lib scan       registry new/add_root/scan              (vs the floor)
#   to-prompt CLI  skit to-prompt DIR... (one exec, N <= 10k), the DIRs being
#                  every folder of the tree, so their parent's warm index
#                  cache applies                         (vs the floor)
#   to-prompt, no cache  the same with SKIT_NO_CACHE=1    (vs the floor)
#   to-prompt, empty cache  its first run, which keeps the parent's cache
#   to-prompt lib  registry scan + skit_prompt_render      (vs the floor)
#   search         per-query latency inside one process (median, p95) over
#                  queries.txt, vs a naive substring scan in the same process
#   search CLI     skit search end to end                  (vs the floor)
#   peak RSS       of `skit list --json` over 100k, warm and without the
#                  cache (vs the frontmatter bytes)
#
# Then the real-world mix (BENCH_MIX=0 skips it): bench/gen-mix.py writes
# 3,500 skills over 700 roots with the frontmatter patterns of public skill
# collections, named in a config file; the floor reads all 700 roots, and
# `skit list --json --config FILE` runs without the cache, from an empty
# cache and warm, in the same rounds.
#
# Every command runs once untimed first (page cache and loader warm), then
# BENCH_RUNS rounds (default 7) in which the floor and each command run one
# after the other, so load from elsewhere hits them alike. A time is the
# median over rounds; a ratio is the median over rounds of (command / floor
# in the same round). The table is printed and written, as Markdown, to
# BUILD_DIR/bench-results.md; raw numbers go to BUILD_DIR/bench-log.txt.
#
# The index cache (docs/registry.md) lives in BUILD_DIR/bench-cache, never
# in the user's ~/.cache; it is primed once per tree before the rounds, so
# every figure but "no cache" and "empty cache" is a warm-cache figure (a
# command from an empty cache writes it again, for the ones after it).
#
# Environment: BENCH_RUNS (timed rounds, default 7), BENCH_SIZES (default
# "1k 10k 100k"), BENCH_MIX (default 1: the real-world mix), BENCH_DATA (default BUILD_DIR/bench-data), BENCH_PASSES
# (search passes per query, default 5), BENCH_PROFILE=1 (also record a perf
# profile of `skit list --json` over the largest tree into BUILD_DIR/bench-profile.txt;
# perf must be installed and allowed: kernel.perf_event_paranoid <= 2).
set -u

BUILD=${1:-build}
RUNS=${BENCH_RUNS:-7}
SIZES=${BENCH_SIZES:-"1k 10k 100k"}
DATA=${BENCH_DATA:-$BUILD/bench-data}
PASSES=${BENCH_PASSES:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
XDG_CACHE_HOME=$(cd "$BUILD" && pwd)/bench-cache
export XDG_CACHE_HOME
unset SKIT_NO_CACHE SKIT_HOME
MIX=${BENCH_MIX:-1}
EMPTY="rm -rf '$XDG_CACHE_HOME/skit'"

SKIT=$BUILD/skit
RUN=$BUILD/bench/bench_run
FLOOR=$BUILD/bench/bench_floor
REG=$BUILD/bench/bench_registry
RESULTS=$BUILD/bench-results.md
ROWS=$(mktemp)
LOG=$BUILD/bench-log.txt
trap 'rm -f "$ROWS" "$ROWS".*' EXIT

die() {
	echo "bench: $*" >&2
	exit 1
}

for b in "$RUN" "$FLOOR" "$REG"; do
	[ -x "$b" ] || cmake --build "$BUILD" --target "$(basename "$b")" >/dev/null ||
		die "cannot build $b"
done
[ -x "$SKIT" ] || die "$SKIT is missing: run 'make build' first"
: >"$LOG"

count() {
	case $1 in
	*k) echo $((${1%k} * 1000)) ;;
	*) echo "$1" ;;
	esac
}

# Value of key $2 in a "k=v k=v" line $1.
kv() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# row FIGURE VALUE BASELINE RATIO TARGET: append a table row. VALUE and
# BASELINE are numbers with a unit ("12.3 ms", "45.6 MB"), "n/a" or "-".
# RATIO is "" to compute VALUE / BASELINE. TARGET is "<=1.5x" (on the
# ratio), "<5 ms" / "<100 MB" (on the value) or "-" (information only).
row() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$ROWS"
}

ms() {
	[ -n "$1" ] && printf '%.1f ms' "$1" || echo "n/a"
}

# A latency given in ms, shown in us below 1 ms.
us() {
	[ -n "$1" ] && awk "BEGIN { if ($1 < 1) printf \"%.1f us\", $1 * 1000;
		else printf \"%.2f ms\", $1 }" || echo "n/a"
}

# KiB (ru_maxrss's unit) as decimal megabytes, the unit of the target.
mb() {
	[ -n "$1" ] && awk "BEGIN { printf \"%.1f MB\", $1 * 1024 / 1e6 }" ||
		echo "n/a"
}

ratio() {
	[ -n "$1" ] && printf '%.2fx' "$1" || echo "-"
}

free_gb() {
	df -Pk "$1" | awk 'NR == 2 { print int($4 / 1048576) }'
}

# command_of LABEL: set the array `cmd` to that figure's command line
# (uses $root, $out and $q of the tree being measured).
command_of() {
	case $1 in
	yaml) cmd=("$FLOOR" --yaml "$root") ;;
	list) cmd=("$SKIT" list --json --root "$root") ;;
	listcold) cmd=(--env SKIT_NO_CACHE=1 "$SKIT" list --json --root "$root") ;;
	listempty) cmd=(--prep "$EMPTY" "$SKIT" list --json --root "$root") ;;
	scan) cmd=("$REG" scan "$root") ;;
	toprompt) cmd=("$SKIT" to-prompt "@$out/paths.txt") ;;
	toprcold) cmd=(--env SKIT_NO_CACHE=1 "$SKIT" to-prompt "@$out/paths.txt") ;;
	toprempty) cmd=(--prep "$EMPTY" "$SKIT" to-prompt "@$out/paths.txt") ;;
	libprompt) cmd=("$REG" prompt "$root") ;;
	search) cmd=("$SKIT" search --root "$root" "$q") ;;
	esac
}

mkdir -p "$DATA"
echo "bench: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $RUNS rounds (median), 1 warm-up round"

for size in $SIZES; do
	n=$(count "$size")
	out=$DATA/$size
	root=$out/skills
	if [ ! -f "$out/.gen-stamp" ] && [ "$n" -ge 50000 ] &&
		[ "$(free_gb "$DATA")" -lt $((n / 40000 + 2)) ]; then
		echo "bench: not enough disk for $size skills in $DATA; skipped" >&2
		continue
	fi
	python3 "$HERE/gen-skills.py" --out "$out" -n "$n" ||
		die "generator failed for $size"
	find "$root" -mindepth 1 -maxdepth 1 -type d | sort >"$out/paths.txt"
	echo "bench: $size skills in $root"

	# One interleaved bench_run: floor, then each command, round after
	# round, so every ratio compares runs made under the same load. Any
	# non-zero exit fails it (the search query is one that matches); then
	# each command is timed on its own against the floor, so one broken
	# command costs only its own rows.
	q=$(sed -n 3p "$out/queries.txt")
	# Files modified in the last 2 s are never cached (docs/registry.md):
	# wait out a fresh tree, then prime the cache.
	[ -n "$(find "$root" -maxdepth 2 -name SKILL.md -newermt '-3 seconds' |
		head -n 1)" ] && sleep 3
	"$SKIT" list --json --root "$root" >/dev/null ||
		echo "bench: priming the cache failed" >&2
	labels="yaml list listcold listempty scan"
	[ "$n" -le 10000 ] && labels="$labels toprompt toprcold toprempty"
	labels="$labels libprompt search"
	cmds=("$FLOOR" "$root")
	for l in $labels; do
		command_of "$l"
		cmds+=(";;" "${cmd[@]}")
	done
	echo "## $size: floor $labels" >>"$LOG"
	if res=$("$RUN" -n "$RUNS" "${cmds[@]}" 2>>"$LOG"); then
		echo "$res" >>"$LOG"
	else
		echo "FAILED; timing each command alone" >>"$LOG"
		res=""
		k=0
		for l in $labels; do
			k=$((k + 1))
			command_of "$l"
			echo "## $size: floor $l" >>"$LOG"
			if r=$("$RUN" -n "$RUNS" "$FLOOR" "$root" ";;" "${cmd[@]}" \
				2>>"$LOG"); then
				echo "$r" >>"$LOG"
				[ -z "$res" ] && res=$(echo "$r" | grep '^cmd=0 ')
				res="$res
$(echo "$r" | grep '^cmd=1 ' | sed "s/^cmd=1 /cmd=$k /")"
			else
				echo "FAILED" >>"$LOG"
			fi
		done
	fi
	line() { printf '%s\n' "$res" | grep "^cmd=$1 "; }
	f_ms=$(kv "$(line 0)" median_ms)
	row "raw floor, $size" "$(ms "$f_ms")" "-" "-" "-"
	k=0
	for l in $labels; do
		k=$((k + 1))
		r=$(line $k)
		v=$(ms "$(kv "$r" median_ms)")
		x=$(ratio "$(kv "$r" ratio)")
		t=-
		case $l in
		yaml)
			row "floor + libyaml events (reference), $size" "$v" \
				"$(ms "$f_ms")" "$x" "-" ;;
		list)
			[ "$size" = 10k ] && t='<=1.5x'
			row "skit list --json (warm cache), $size" "$v" "$(ms "$f_ms")" "$x" "$t"
			if [ "$size" = 100k ]; then
				fmb=$(kv "$(cat "$out/stats.txt")" frontmatter_bytes)
				row "peak RSS, skit list --json, 100k" \
					"$(mb "$(kv "$r" maxrss_kb)")" \
					"$(mb $((fmb / 1024)))" "" "<100 MB"
			fi ;;
		listcold)
			row "skit list --json, no cache (SKIT_NO_CACHE=1), $size" \
				"$v" "$(ms "$f_ms")" "$x" "-"
			if [ "$size" = 100k ]; then
				row "peak RSS, skit list --json, no cache, 100k" \
					"$(mb "$(kv "$r" maxrss_kb)")" \
					"$(mb $((fmb / 1024)))" "" "<100 MB"
			fi
			nc_ratio=$(kv "$r" ratio) ;;
		listempty)
			row "skit list --json, empty cache (first scan, writes it), $size" \
				"$v" "$(ms "$f_ms")" "$x" "-"
			row "  first scan / no cache, $size" "$(ratio "$(kv "$r" ratio)")" \
				"$(ratio "$nc_ratio")" "" "-" ;;
		scan)
			row "library scan (warm cache), $size" "$v" "$(ms "$f_ms")" "$x" "-"
			[ "$size" = 100k ] && row "peak RSS, library scan, 100k" \
				"$(mb "$(kv "$r" maxrss_kb)")" \
				"$(mb $((fmb / 1024)))" "" "-" ;;
		toprompt)
			[ "$size" = 10k ] && t='<=1.5x'
			row "skit to-prompt DIR... (one exec, warm cache of the parent), $size" "$v" \
				"$(ms "$f_ms")" "$x" "$t" ;;
		toprcold)
			row "skit to-prompt DIR..., no cache (SKIT_NO_CACHE=1), $size" \
				"$v" "$(ms "$f_ms")" "$x" "-" ;;
		toprempty)
			[ "$size" = 10k ] && t='<=2.5x'
			row "skit to-prompt DIR..., empty cache (first run, keeps it), $size" \
				"$v" "$(ms "$f_ms")" "$x" "$t" ;;
		libprompt)
			[ "$size" = 10k ] && t='<=1.5x'
			row "library to-prompt (scan+render, warm cache), $size" "$v" \
				"$(ms "$f_ms")" "$x" "$t" ;;
		search)
			row "skit search \"$q\" (end to end), $size" "$v" \
				"$(ms "$f_ms")" "$x" "-" ;;
		esac
	done

	echo "## search lib $size" >>"$LOG"
	if s=$("$REG" search "$root" "$out/queries.txt" "$PASSES" 2>>"$LOG"); then
		echo "$s" >>"$LOG"
		s=$(echo "$s" | tr '\n' ' ')
		row "search median per query ($(kv "$s" queries) queries), $size" \
			"$(us "$(kv "$s" search_median_ms)")" \
			"$(us "$(kv "$s" naive_median_ms)")" "" \
			"$([ "$size" = 100k ] && echo '<5 ms' || echo -)"
		row "search p95 per query, $size" \
			"$(us "$(kv "$s" search_p95_ms)")" \
			"$(us "$(kv "$s" naive_p95_ms)")" "" "-"
		row "search index build (first query), $size" \
			"$(ms "$(kv "$s" index_build_ms)")" "$(ms "$(kv "$s" scan_ms)")" "" "-"
	else
		echo "FAILED" >>"$LOG"
		row "search median per query, $size" "n/a" "n/a" "" \
			"$([ "$size" = 100k ] && echo '<5 ms' || echo -)"
	fi
done

# The real-world mix: 3,500 skills over 700 roots, named by a config file.
# HOME is an empty folder, so no user root adds to them.
if [ "$MIX" != 0 ]; then
	mix=$DATA/mix
	python3 "$HERE/../bench/gen-mix.py" --out "$mix" -q ||
		die "the mix generator failed"
	mkdir -p "$mix/home"
	cfg=$mix/config.json
	[ -n "$(find "$mix/roots" -maxdepth 3 -name SKILL.md -newermt '-3 seconds' |
		head -n 1)" ] && sleep 3
	stats=$(cat "$mix/stats.txt")
	echo "bench: mix: $stats"
	echo "## mix: $stats" >>"$LOG"
	echo "## mix: floor listcold listempty list" >>"$LOG"
	if res=$(HOME=$mix/home "$RUN" -n "$RUNS" "$FLOOR" "@$mix/roots.txt" \
		";;" --env SKIT_NO_CACHE=1 "$SKIT" list --json --config "$cfg" \
		";;" --prep "$EMPTY" "$SKIT" list --json --config "$cfg" \
		";;" "$SKIT" list --json --config "$cfg" 2>>"$LOG"); then
		echo "$res" >>"$LOG"
		line() { printf '%s\n' "$res" | grep "^cmd=$1 "; }
		f_ms=$(kv "$(line 0)" median_ms)
		nc=$(kv "$(line 1)" ratio)
		em=$(kv "$(line 2)" ratio)
		row "raw floor, mix (3,500 skills, 700 roots)" "$(ms "$f_ms")" "-" "-" "-"
		row "skit list --json, no cache (SKIT_NO_CACHE=1), mix" \
			"$(ms "$(kv "$(line 1)" median_ms)")" "$(ms "$f_ms")" \
			"$(ratio "$nc")" "-"
		row "skit list --json, empty cache (first scan, writes it), mix" \
			"$(ms "$(kv "$(line 2)" median_ms)")" "$(ms "$f_ms")" \
			"$(ratio "$em")" "-"
		row "  first scan / no cache, mix" "$(ratio "$em")" \
			"$(ratio "$nc")" \
			"$(ratio "$(awk "BEGIN { print $em / $nc }")")" "<=1.2x"
		row "skit list --json (warm cache), mix" \
			"$(ms "$(kv "$(line 3)" median_ms)")" "$(ms "$f_ms")" \
			"$(ratio "$(kv "$(line 3)" ratio)")" "-"
	else
		echo "FAILED" >>"$LOG"
		row "skit list --json over the mix" "n/a" "n/a" "" "-"
	fi
	counts=$(HOME=$mix/home "$SKIT" list --all --json --config "$cfg" 2>/dev/null |
		python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sum(e["state"] == "active" for e in d), len(d))') || counts="? ?"
	row "skills active in the mix (of those listed, of 3,500 written)" \
		"${counts% *}" "${counts#* }" "" "-"
fi

# Optional: where `skit list --json` spends its time, over the largest tree
# (for enough samples). DWARF call graphs, because a RelWithDebInfo build
# keeps no frame pointers.
if [ "${BENCH_PROFILE:-0}" = 1 ] && command -v perf >/dev/null; then
	for size in $SIZES; do
		root=$DATA/$size/skills
	done
	prof=$BUILD/bench-profile.txt
	if perf record -q -F 2000 --call-graph dwarf,16384 -o "$BUILD/perf.data" \
		-- "$SKIT" list --json --root "$root" >/dev/null 2>>"$LOG"; then
		{
			echo "# self time by shared object"
			perf report -i "$BUILD/perf.data" --no-children --stdio \
				--sort dso -g none 2>/dev/null | grep -v '^#' | grep -v '^$'
			echo "# self time by symbol (>= 1%)"
			perf report -i "$BUILD/perf.data" --no-children --stdio \
				--sort dso,sym --percent-limit 1 -g none 2>/dev/null |
				grep -v '^#' | grep -v '^$'
			echo "# time including callees, by symbol (>= 2%)"
			perf report -i "$BUILD/perf.data" --children --stdio \
				--sort sym --percent-limit 2 -g none 2>/dev/null |
				grep -v '^#' | grep -v '^$'
		} >"$prof"
		echo "bench: profile in $prof"
	fi
fi

# The table. The ratio is bench_run's per-round median ratio where there is
# one, else value / baseline; PASS/FAIL where there is a target.
awk -F'\t' -v md="$RESULTS" '
function num(s) { return s + 0 }
# A quantity in the unit of the target: "25.0 us" is 0.025 in ms.
function conv(s, unit) {
	if (s ~ / us$/ && unit == "ms") return num(s) / 1000
	return num(s)
}
BEGIN {
	hdr[1] = "figure"; hdr[2] = "value"; hdr[3] = "baseline";
	hdr[4] = "ratio"; hdr[5] = "target"; hdr[6] = "result"
}
{
	v = $2; b = $3; ratio = $4; t = $5; res = "-"
	if (ratio == "" && v != "n/a" && b != "-" && b != "n/a" && num(b) > 0)
		ratio = sprintf(conv(v, "ms") < 0.1 * conv(b, "ms") ? "%.3fx" : \
				"%.2fx", conv(v, "ms") / conv(b, "ms"))
	if (ratio == "") ratio = "-"
	lim = t; gsub(/[^0-9.]/, "", lim)
	if (t ~ /x$/)
		res = ratio == "-" ? "not measured" : \
		      (num(ratio) <= num(lim) ? "PASS" : "FAIL")
	else if (t != "-") {
		unit = t; sub(/^[^ ]* /, "", unit)
		res = v == "n/a" ? "not measured" : \
		      (conv(v, unit) < num(lim) ? "PASS" : "FAIL")
	}
	n++; cell[n, 1] = $1; cell[n, 2] = v; cell[n, 3] = b
	cell[n, 4] = ratio; cell[n, 5] = t; cell[n, 6] = res
}
END {
	for (c = 1; c <= 6; c++) {
		w[c] = length(hdr[c])
		for (r = 1; r <= n; r++)
			if (length(cell[r, c]) > w[c]) w[c] = length(cell[r, c])
	}
	line = ""
	for (c = 1; c <= 6; c++) line = line sprintf("%-" w[c] "s  ", hdr[c])
	print line
	for (r = 1; r <= n; r++) {
		line = ""
		for (c = 1; c <= 6; c++)
			line = line sprintf("%-" w[c] "s  ", cell[r, c])
		print line
	}
	print "| figure | value | baseline | ratio | target | result |" > md
	print "|---|---:|---:|---:|---|---|" > md
	for (r = 1; r <= n; r++)
		printf "| %s | %s | %s | %s | %s | %s |\n", cell[r, 1], cell[r, 2],
		       cell[r, 3], cell[r, 4], cell[r, 5], cell[r, 6] > md
}' "$ROWS"
echo "bench: table in $RESULTS, raw numbers in $LOG"
