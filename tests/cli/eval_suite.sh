#!/bin/sh
# eval_suite.sh - `skit eval` end to end: the shipped examples/evals suite
# passes offline with every report format, and a deliberately broken
# cassette makes the suite fail with the reasons that say why; trigger
# sets; the progress line on a terminal; --model against a local
# OpenAI-compatible server (tests/support/openai_stub.py).
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"

reg_setup
EV=$SKIT_SOURCE_DIR/examples/evals
# Runs without --runs-dir go to the audit trail; keep it in the scratch
# folder, and check that nothing lands in $TMPDIR.
SKIT_RUNS_DIR=$W/audit
TMPDIR=$W/tmp
export SKIT_RUNS_DIR TMPDIR
mkdir -p "$TMPDIR"
# The suites run here are the user's own: their folders are trusted
# (docs/evals.md, "Folder trust"; eval_trust.sh tests the refusal).
for d in "$EV" "$W/suite" "$W/trig" "$W/long"; do
	mkdir -p "$d"
	run trust "$d"
	expect_rc 0 "trust $d"
done

# The shipped suite: every case passes.
run eval --runs-dir "$T/runs" "$EV"
expect_rc 0 "examples/evals passes"
has "$T/out" "cases: 3/3 passed" "every case passes"
has "$T/out" "csv-report" "the table names the cases"
has "$T/out" "PRECISION" "the skill table is printed"
has "$T/out" "trigger queries: 6/6 passed" "every trigger query passes"
has "$T/out" "held-out" "the trigger table shows the held-out split"
[ -f "$(find "$T/runs" -name events.jsonl | head -n 1)" ] && reg_pass ||
	reg_fail "each run keeps its audit trail"

run eval --jobs 2 --report json --out "$T/report.json" "$EV"
expect_rc 0 "json report, two jobs"
json_ok "$T/report.json" "the JSON report parses"
has "$T/report.json" '"pass_rate"' "the JSON report has the pass rate"
has "$T/err" "3 of 3 cases and 6 of 6 trigger queries passed" \
	"a summary line on stderr"

run eval --json "$EV"
expect_rc 0 "--json"
json_ok "$T/out" "--json prints the JSON report"
set -- "$W"/audit/eval-*/
[ -d "$1" ] && reg_pass || reg_fail "default runs folder: eval-* in the audit trail"
has "$T/err" "$W/audit/eval-" "the summary names the runs folder"
[ -z "$(ls -A "$TMPDIR")" ] && reg_pass || reg_fail "eval left files in TMPDIR: $(ls -A "$TMPDIR")"

run eval --report junit "$EV"
expect_rc 0 "junit report"
has "$T/out" '<testsuite' "JUnit XML"
n=$(grep -c '<testcase ' "$T/out")
[ "$n" -eq 9 ] && reg_pass || reg_fail "9 testcases (3 cases, 6 queries), got $n"
lacks "$T/out" '<failure' "no failures"

# A broken cassette: the model answers without csv-report.
mkdir -p "$W/suite/cassettes"
cp "$EV/no-skill.yaml" "$W/suite/"
cp -R "$EV/data" "$W/suite/"
cp "$EV/cassettes/no-skill.jsonl" "$W/suite/cassettes/"
sed "s|\.\./skills|$SKIT_SOURCE_DIR/examples/skills|" "$EV/csv-report.yaml" \
	>"$W/suite/csv-report.yaml"
printf '%s\n' '{"text": "I cannot tell.", "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 4}}' \
	>"$W/suite/cassettes/csv-report.jsonl"
sed -i "s|\.\./skills|$SKIT_SOURCE_DIR/examples/skills|" "$W/suite/no-skill.yaml"
run eval "$W/suite"
expect_rc 1 "a broken cassette fails the suite"
has "$T/out" "cases: 1/2 passed" "one of two cases passes"
has "$T/out" "csv-report" "the failing case is named"
has "$T/out" "12 rows" "the missing output is a reason"
grep -q "FAIL\|fail" "$T/out" && reg_pass || reg_fail "the case is marked failed"
has "$T/err" "under the minimum" "the exit reason is given"

run eval --report junit "$W/suite"
expect_rc 1 "junit, broken"
n=$(grep -c '<failure' "$T/out")
[ "$n" -eq 1 ] && reg_pass || reg_fail "1 failure in JUnit, got $n"

run eval --min-pass-rate 0.5 "$W/suite"
expect_rc 0 "half passing meets --min-pass-rate 0.5"

# Trigger sets: --holdout 0 merges the split; a set whose should-trigger
# query never triggers fails with its rate.
run eval --holdout 0 "$EV/triggers-csv-report.yaml"
expect_rc 0 "the trigger set passes without a split"
lacks "$T/out" "held-out" "--holdout 0: no held-out queries"
has "$T/out" "trigger queries: 6/6 passed" "six queries pass"
mkdir -p "$W/trig"
cp "$EV/cassettes/trigger-none.jsonl" "$W/trig/none.jsonl"
printf '%s\n' "skill: csv-report" "skills: $SKIT_SOURCE_DIR/examples/skills" \
	"cassette: none.jsonl" "queries:" "  - query: Profile sales.csv" \
	"    should_trigger: true" "  - query: Write a haiku" \
	"    should_trigger: false" >"$W/trig/set.yaml"
run eval "$W/trig/set.yaml"
expect_rc 1 "a should-trigger query that never triggers fails"
has "$T/out" "triggered in 0 of 1 trials (0.00); needs at least 0.50" \
	"the reason gives the rate and the threshold"
has "$T/out" "trigger queries: 1/2 passed" "one of two queries passes"
run eval --min-pass-rate 0.5 "$W/trig/set.yaml"
expect_rc 0 "queries count in the pass rate"
run eval --holdout 1 "$EV"
expect_rc 2 "--holdout 1 is refused"

# On a terminal, a progress line on stderr; never without one.
run eval "$EV"
lacks "$T/err" "[1/16]" "no progress line without a terminal"
if command -v script >/dev/null 2>&1; then
	timeout 60 script -qec "'$SKIT' eval --runs-dir '$W/tty-runs' '$EV' >'$T/tty-out'" \
		/dev/null >"$T/tty" 2>&1
	has "$T/tty" "[1/16] pass" "the progress line counts trials"
	has "$T/tty" "[16/16] pass" "it reaches the last trial"
	has "$T/tty" "triggers-csv-report#" "it names the entry"
	has "$T/tty-out" "cases: 3/3 passed" "the report still goes to stdout"
	# A long name is cut so that the line does not wrap.
	long=nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn
	mkdir -p "$W/long"
	sed -e "s|^description:|name: $long\ndescription:|" \
		-e "s|\.\./skills|$SKIT_SOURCE_DIR/examples/skills|" \
		-e "s|cassettes/|$EV/cassettes/|" "$EV/no-skill.yaml" >"$W/long/case.yaml"
	timeout 60 script -qec "'$SKIT' eval --runs-dir '$W/tty-runs' '$W/long' >/dev/null" \
		/dev/null >"$T/tty-long" 2>&1
	has "$T/tty-long" "[1/1] pass nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn…" \
		"a long name is cut with an ellipsis"
	lacks "$T/tty-long" "$long" "the whole name is not printed"
fi

# --model: a trigger set against an OpenAI-compatible server on 127.0.0.1.
if command -v python3 >/dev/null 2>&1; then
	printf '%s\n' \
		'{"tool_calls": [{"name": "use_skill", "arguments": {"name": "csv-report"}}]}' \
		'{"content": "Send me the file."}' '{"content": "Leaves fall."}' \
		'{"tool_calls": [{"name": "use_skill", "arguments": {"name": "csv-report"}}]}' \
		>"$W/stub.jsonl"
	sed 's/^cassette: .*$/trials: 2/' "$W/trig/set.yaml" >"$W/trig/set2.yaml"
	python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" "$W/stub.jsonl" \
		"$W/port" "$T/stub.log" &
	stub=$!
	n=0
	# at most 60 s: a loaded machine may be slow to start python (the
	# port file is written whole, by a rename)
	while [ ! -f "$W/port" ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	OPENAI_BASE_URL="http://127.0.0.1:$(cat "$W/port")/v1"
	OPENAI_API_KEY=sk-stub
	export OPENAI_BASE_URL OPENAI_API_KEY
	run eval --model openai:gpt-stub --report json --out "$T/model.json" \
		"$W/trig/set2.yaml"
	unset OPENAI_BASE_URL OPENAI_API_KEY
	kill "$stub" 2>/dev/null
	wait "$stub" 2>/dev/null
	expect_rc 1 "--model: one query of two passes"
	lines "$T/stub.log" 4 "two queries, two trials each, one call each"
	has "$T/stub.log" '"model":"gpt-stub"' "--model names the model asked"
	has "$T/stub.log" "Profile sales.csv" "the query reaches the model"
	json_ok "$T/model.json" "the report is JSON"
	has "$T/model.json" '"triggered": 1' "query 1 triggered in 1 of 2 trials"
	has "$T/model.json" '"queries_passed": 1' "one query passes"
	has "$T/err" "1 of 2 trigger queries passed" "the summary line"
fi

# Usage errors.
run eval
expect_rc 2 "no PATH"
run eval --min-pass-rate 2 "$EV"
expect_rc 2 "a rate over 1"
run eval --report html "$EV"
expect_rc 2 "an unknown report format"
printf 'input: x\nbogus: 1\n' >"$W/bad.yaml"
run eval "$W/bad.yaml"
expect_rc 2 "a case file with an unknown key"
has "$T/err" "bogus" "the unknown key is named"
run eval --help
expect_rc 0 "--help"

reg_done
