#!/bin/sh
# eval_suite.sh - `skit eval` end to end: the shipped examples/evals suite
# passes offline with every report format, and a deliberately broken
# cassette makes the suite fail with the reasons that say why.
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"

reg_setup
EV=$SKIT_SOURCE_DIR/examples/evals

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

run eval --report junit "$EV"
expect_rc 0 "junit report"
has "$T/out" '<testsuite' "JUnit XML"
n=$(grep -c '<testcase ' "$T/out")
[ "$n" -eq 9 ] && reg_pass || reg_fail "9 testcases (3 cases, 6 queries), got $n"
lacks "$T/out" '<failure' "no failures"

# A broken cassette: the model answers without csv-report.
mkdir -p "$W/suite/cassettes"
cp "$EV/no-skill.yaml" "$W/suite/"
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
