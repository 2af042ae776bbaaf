#!/bin/sh
# readme_tour.sh - README.md is executable truth: its tour runs here as a
# user pastes it, from a scratch copy of the checkout (the tracked files,
# with build/ standing for the build under test), HOME a scratch folder,
# no terminal, every line in one shell (so `cd`, `export` and variables
# carry over from line to line and block to block).
#
# The tour is every ```sh block from "## A short tour" to "## Building by
# hand", in order; blank lines and comment-only lines are skipped. What
# each line must do is written on the line itself, in its trailing
# comment (README.md says so above the tour):
#
#   (no mark)        exit 0
#   # exit N ...     exit N (a finding, shown on purpose)
#   # needs ...      it needs what this machine lacks (a host on the
#                    internet, an API key, a registry login): it may
#                    fail, but cleanly: exit 1 or 2, within the time
#                    limit, with at most three lines on stderr
#
# A server (`skit mcp --http`, "until Ctrl-C") is stopped after three
# seconds, which counts as success (so does one line saying the port is
# taken).
#
# Keep the `needs` lines few: each is a line this test cannot prove. What
# stands in for the outside world: OPENAI_BASE_URL and ANTHROPIC_BASE_URL
# point to tests/support/openai_stub.py on 127.0.0.1, with a fake key
# each, so the model lines run too.
#
# Afterwards the checkout copy holds no new file: the tour works in its
# own scratch project.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
README=$SKIT_SOURCE_DIR/README.md

# --- the tour's lines, in order
awk '
	/^## A short tour/ { on = 1 }
	/^## Building by hand/ { on = 0 }
	on && /^```sh/ { inblock = 1; next }
	inblock && /^```/ { inblock = 0; next }
	inblock && NF && $1 !~ /^#/ { print }
' "$README" >"$T/lines"
n=$(wc -l <"$T/lines" | tr -d ' ')
[ "$n" -ge 40 ] && reg_pass || reg_fail "only $n tour lines found in README.md"

# --- a fresh clone: the tracked files, and build/ for the build under test
C=$W/clone
mkdir -p "$C" || exit 1
(cd "$SKIT_SOURCE_DIR" && git ls-files -z | xargs -0 tar -cf - 2>/dev/null) |
	(cd "$C" && tar -xf -) || exit 1
ln -s "$(cd "$(dirname "$SKIT")" && pwd)" "$C/build" || exit 1
(cd "$C" && git init -q .) || exit 1
touch "$T/stamp"
sleep 1

# --- the stub model: a plain answer to every request
i=0
while [ $i -lt 200 ]; do
	echo '{"text": "STUB-ANSWER"}'
	i=$((i + 1))
done >"$T/answers.jsonl"
python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" "$T/answers.jsonl" \
	"$T/port" "$T/stub.log" &
STUB=$!
trap 'kill $STUB 2>/dev/null' EXIT INT TERM
k=0
while [ ! -s "$T/port" ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
PORT=$(cat "$T/port")

# --- the script: each line verbatim, in a group of its own (so its
# trailing comment cannot swallow the redirections), then its status.
# `skit` runs under a time limit, found on PATH as the tour set it.
{
	cat <<'FN'
skit() {
	case " $* " in
	*" mcp "*--http*)
		timeout 3 skit "$@"
		_rc=$?
		[ $_rc = 124 ] && return 0
		return $_rc
		;;
	*) timeout 120 skit "$@" ;; # timeout finds skit on PATH
	esac
}
FN
	k=0
	while IFS= read -r l; do
		k=$((k + 1))
		printf '{\n%s\n} </dev/null >"$TOUR_OUT/out.%s" 2>"$TOUR_OUT/err.%s"\n' \
			"$l" "$k" "$k"
		printf 'echo "%s $?" >>"$TOUR_OUT/status"\n' "$k"
	done <"$T/lines"
} >"$T/tour.sh"

: >"$T/status"
mkdir -p "$W/tmp" || exit 1
(cd "$C" && PATH=/usr/local/bin:/usr/bin:/bin TOUR_OUT=$T TMPDIR=$W/tmp \
	OPENAI_API_KEY=sk-test-tour OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" \
	ANTHROPIC_API_KEY=sk-ant-test-tour ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" \
	SKIT_MODEL= SKIT_CASSETTE= NO_COLOR=1 timeout 600 sh "$T/tour.sh")

# --- compare each line with what its comment promises
k=0
while IFS= read -r l; do
	k=$((k + 1))
	got=$(awk -v k="$k" '$1 == k { print $2; exit }' "$T/status")
	# the trailing comment: after the first blank followed by '#'
	comment=$(printf '%s\n' "$l" | awk '{
		i = match($0, /[ \t]#/)
		if (i) { c = substr($0, i + 2); sub(/^[ \t]*/, "", c); print c }
	}')
	want=0
	case $comment in
	"exit "[0-9]*) want=$(printf '%s\n' "$comment" | sed 's/^exit \([0-9]*\).*/\1/') ;;
	needs*) want=needs ;;
	esac
	if [ -z "$got" ]; then
		reg_fail "not run (the tour stopped before it): $l"
	elif [ "$want" = needs ]; then
		errs=$(wc -l <"$T/err.$k" | tr -d ' ')
		if [ "$got" = 0 ] ||
			{ [ "$got" -ge 1 ] && [ "$got" -le 2 ] && [ "$errs" -le 3 ]; }; then
			reg_pass
		else
			reg_fail "exit $got, expected a clean end: $l: $(head -n 5 "$T/err.$k")"
		fi
	elif [ "$got" = "$want" ]; then
		reg_pass
	elif [ "$want" = 0 ] && [ "$got" = 1 ] && case $l in *"until Ctrl-C"*) true ;; *) false ;; esac &&
		grep -q "Address already in use" "$T/err.$k"; then
		echo "NOTE: port in use, not served: $l"
		reg_pass
	else
		reg_fail "exit $got, expected $want: $l"
		sed 's/^/  stderr: /' "$T/err.$k" | head -n 5
	fi
done <"$T/lines"

# --- what the tour made, where it should be
new=$(find "$C" -newer "$T/stamp" ! -path "$C/build" ! -path "$C" 2>/dev/null | head -n 5)
[ -z "$new" ] && reg_pass || reg_fail "the tour wrote into the checkout: $new"
sarif=$(find "$W/tmp" -name scan.sarif -newer "$T/stamp" 2>/dev/null | head -n 1)
if [ -n "$sarif" ] &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"] == "2.1.0"' "$sarif" 2>/dev/null; then
	reg_pass
else
	reg_fail "the tour's scan.sarif is missing or not SARIF 2.1.0 JSON ($sarif)"
fi
# `show csv-report`, `search` and `list --installed` found the skill the
# tour installed.
k=$(grep -n '^skit list --installed' "$T/lines" | cut -d: -f1)
has "$T/out.$k" "csv-report" "skit list --installed in the tour"
k=$(grep -n '^skit show csv-report' "$T/lines" | cut -d: -f1)
has "$T/out.$k" "scripts/report.py" "skit show csv-report in the tour"
k=$(grep -n '^skit search ' "$T/lines" | cut -d: -f1)
has "$T/out.$k" "csv-report" "skit search in the tour finds csv-report"
reg_done
