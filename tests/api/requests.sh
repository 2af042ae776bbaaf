#!/bin/sh
# SPDX-License-Identifier: MIT
# requests.sh - every request skit sends, checked against what the real
# APIs accept (docs/models.md, "Checked against the APIs").
#
# Runs the scenarios of tests/api/scenarios/ with `skit run` and `skit
# chat` against tests/support/openai_stub.py, for openai and anthropic,
# streamed and not; the stub records each request's headers and body.
# Then tests/api/check.mjs judges every recorded request with the
# official SDK types (tsc), the OpenAI OpenAPI schema (ajv) and the rules
# the APIs enforce, and judges planted bad requests, each of which must
# be rejected.
#
# The npm packages come from scripts/api-deps.sh (pinned, into the build
# tree). Exit 77 (CTest: skipped) when they cannot be installed.
#
# Environment (set by CMake): SKIT, SKIT_SOURCE_DIR, SKIT_TEST_DIR,
# SKIT_API_NODE (where the npm packages go).
set -u

: "${SKIT_SOURCE_DIR:=$(pwd)}"
: "${SKIT:=$SKIT_SOURCE_DIR/build/skit}"
: "${SKIT_TEST_DIR:=${TMPDIR:-/tmp}/skit-api-$$}"
: "${SKIT_API_NODE:=$SKIT_SOURCE_DIR/build/api-node}"
API=$SKIT_SOURCE_DIR/tests/api
SCEN=$API/scenarios
failures=0

fail() {
	failures=$((failures + 1))
	echo "FAIL: $*"
}

"$SKIT_SOURCE_DIR/scripts/api-deps.sh" "$SKIT_API_NODE"
st=$?
if [ "$st" -eq 77 ]; then
	echo "SKIPPED: the API request check did not run (see above)" >&2
	exit 77
fi
[ "$st" -eq 0 ] || {
	echo "requests: scripts/api-deps.sh failed ($st)" >&2
	exit 1
}

rm -rf "$SKIT_TEST_DIR"
mkdir -p "$SKIT_TEST_DIR" || exit 1
D=$(cd "$SKIT_TEST_DIR" && pwd -P)
W=$D/world
REC=$D/records
HOME=$D/home
XDG_CONFIG_HOME=$D/xdg
export HOME XDG_CONFIG_HOME LC_ALL=C
unset SKIT_HOME NO_COLOR SKIT_MODEL OPENAI_BASE_URL ANTHROPIC_BASE_URL
mkdir -p "$HOME" "$REC"

# Skills: alpha and beta (a guide and a script each), slow (a script that
# says it started, then waits to be interrupted).
for n in alpha beta; do
	d=$W/skills/$n
	mkdir -p "$d/references" "$d/scripts"
	printf -- '---\nname: %s\ndescription: The %s skill, for %s tasks.\n---\n# %s\n\nRead references/guide.md, then run scripts/run.sh.\n' \
		"$n" "$n" "$n" "$n" >"$d/SKILL.md"
	printf '# Guide to %s\n\nStep one.\n' "$n" >"$d/references/guide.md"
	printf '#!/bin/sh\necho "hello from %s: $*"\n' "$n" >"$d/scripts/run.sh"
	chmod +x "$d/scripts/run.sh"
done
d=$W/skills/slow
mkdir -p "$d/scripts"
printf -- '---\nname: slow\ndescription: A script that waits.\n---\nRun scripts/wait.sh.\n' >"$d/SKILL.md"
# (in its private folder, --workdir: scripts run in the project folder)
printf '#!/bin/sh\necho started >"$TMPDIR/started.txt"\nsleep 30\n' >"$d/scripts/wait.sh"
chmod +x "$d/scripts/wait.sh"

STUB_PID=
stub_stop() {
	if [ -n "$STUB_PID" ]; then
		kill "$STUB_PID" 2>/dev/null
		wait "$STUB_PID" 2>/dev/null
	fi
	STUB_PID=
}
trap stub_stop EXIT

# stub CASSETTE RECORD_DIR: start the server, set $PORT.
stub() {
	rm -f "$D/port"
	mkdir -p "$2"
	python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" "$1" \
		"$D/port" "$D/stub.log" "$2" &
	STUB_PID=$!
	i=0
	while [ ! -s "$D/port" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	PORT=$(cat "$D/port" 2>/dev/null)
	[ -n "$PORT" ] || fail "the stub server did not start"
}

# count DIR: number of requests recorded in DIR
count() {
	find "$1" -name '*.json' | wc -l | tr -d ' '
}

# scenario NAME PROVIDER MODE KIND EXPECT_RC EXPECT_REQUESTS [OPTIONS...]
# KIND: run (one task) or chat (messages from $D/input).
scenario() {
	name=$1 prov=$2 mode=$3 kind=$4 want_rc=$5 want_n=$6
	shift 6
	out=$REC/$name-$prov-${mode:-stream}
	stub "$SCEN/$name.jsonl" "$out"
	rm -rf "$W/work" "$W/runs"
	mkdir -p "$W/work" "$W/runs"
	if [ "$prov" = openai ]; then
		spec=openai:gpt-4.1-mini
	else
		spec=anthropic:claude-sonnet-4-5
	fi
	set -- --yes --root "project=$W/skills" --runs-dir "$W/runs" \
		--workdir "$W/work" --model "$spec" $mode "$@"
	if [ "$kind" = run ]; then
		OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 \
			OPENAI_API_KEY=sk-test-openai-key \
			ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT \
			ANTHROPIC_API_KEY=sk-ant-test-key \
			timeout 120 "$SKIT" run "$@" "do the task" \
			>"$D/out" 2>"$D/err"
		rc=$?
	else
		OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 \
			OPENAI_API_KEY=sk-test-openai-key \
			ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT \
			ANTHROPIC_API_KEY=sk-ant-test-key \
			timeout 120 "$SKIT" chat "$@" <"$D/input" \
			>"$D/out" 2>"$D/err"
		rc=$?
	fi
	stub_stop
	[ "$rc" -eq "$want_rc" ] ||
		fail "$name $prov ${mode:-stream}: exit $rc, expected $want_rc: $(head -c 300 "$D/err")"
	n=$(count "$out")
	[ "$n" -eq "$want_n" ] ||
		fail "$name $prov ${mode:-stream}: $n requests, expected $want_n"
}

# cancel_scenario PROVIDER MODE: chat, SIGINT while the script waits.
cancel_scenario() {
	prov=$1 mode=$2
	out=$REC/cancel-$prov-${mode:-stream}
	stub "$SCEN/cancel.jsonl" "$out"
	rm -rf "$W/work" "$W/runs"
	mkdir -p "$W/work" "$W/runs" "$D/fifo.d"
	rm -f "$D/fifo"
	mkfifo "$D/fifo"
	if [ "$prov" = openai ]; then
		spec=openai:gpt-4.1-mini
	else
		spec=anthropic:claude-sonnet-4-5
	fi
	# skit itself gets the one SIGINT (no timeout(1) in between: it
	# would pass the signal on to the process group as well).
	OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 \
		OPENAI_API_KEY=sk-test-openai-key \
		ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT \
		ANTHROPIC_API_KEY=sk-ant-test-key \
		"$SKIT" chat --yes --root "project=$W/skills" \
		--runs-dir "$W/runs" --workdir "$W/work" --model "$spec" \
		$mode <"$D/fifo" >"$D/out" 2>"$D/err" &
	pid=$!
	exec 3>"$D/fifo"
	printf 'start the slow work\n' >&3
	i=0
	while [ ! -e "$W/work/started.txt" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$W/work/started.txt" ] ||
		fail "cancel $prov ${mode:-stream}: the script never started"
	sleep 0.3
	kill -INT "$pid"
	# the answer to the interruption is an error line on stderr
	i=0
	while ! grep -q canceled "$D/err" && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q canceled "$D/err" ||
		fail "cancel $prov ${mode:-stream}: no 'canceled' 60 s after SIGINT"
	printf 'and now?\n' >&3
	exec 3>&-
	# a hang is a failure, not a stuck test
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		fail "cancel $prov ${mode:-stream}: skit chat still running 2 min after SIGINT"
		kill -KILL "$pid"
	fi
	wait "$pid"
	rc=$?
	stub_stop
	[ "$rc" -eq 0 ] ||
		fail "cancel $prov ${mode:-stream}: exit $rc: $(head -c 300 "$D/err")"
	n=$(count "$out")
	[ "$n" -eq 3 ] || fail "cancel $prov ${mode:-stream}: $n requests, expected 3"
}

for prov in openai anthropic; do
	for mode in "" --no-stream; do
		scenario plain "$prov" "$mode" run 0 1
		scenario skill_flow "$prov" "$mode" run 0 4
		scenario tool_errors "$prov" "$mode" run 0 2
		scenario plan_talk "$prov" "$mode" run 0 2
		scenario parallel "$prov" "$mode" run 0 3
		scenario search "$prov" "$mode" run 0 3 --search
		scenario json_actions "$prov" "$mode" run 0 4 --json-actions
		printf 'hello\nsecond message\nthird message\n' >"$D/input"
		scenario chat "$prov" "$mode" chat 0 4
		printf 'two calls please\nand then?\n' >"$D/input"
		scenario budgets "$prov" "$mode" chat 0 2 --max-tool-calls 1
		printf 'say nothing\nsay something\n' >"$D/input"
		scenario blank "$prov" "$mode" chat 0 3
		cancel_scenario "$prov" "$mode"
	done
done

node "$API/check.mjs" "$SKIT_API_NODE" "$REC" "$D/check" || failures=$((failures + 1))
echo "requests: $failures failure(s)"
[ "$failures" -eq 0 ]
