#!/bin/sh
# cli_conventions.sh - the conventions of docs/cli.md: `skit help CMD`,
# `-V`, "did you mean" for mistyped commands, exit 2 for usage errors.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup

# --- skit help CMD is the command's own --help
spec_run "$W" help validate
spec_expect_rc "help validate" 0
"$SKIT" validate --help >"$T/direct" 2>&1
if cmp -s "$T/out" "$T/direct"; then spec_pass; else spec_fail "help validate differs from validate --help"; fi
spec_run "$W" help
spec_expect_rc "help" 0
spec_expect_grep "help: lists commands" "$T/out" "  validate "
spec_run "$W" help nosuch
spec_expect_rc "help nosuch" 2
spec_run "$W" help validate list
spec_expect_rc "help with two names" 2

# --- -V and --version
spec_run "$W" -V
spec_expect_rc "-V" 0
spec_expect_grep "-V: version" "$T/out" "skit 0."
spec_run "$W" --version
spec_expect_grep "--version: version" "$T/out" "skit 0."

# --- did you mean
spec_run "$W" valdiate x
spec_expect_rc "valdiate" 2
spec_expect_grep "valdiate: suggestion" "$T/err" "Did you mean 'skit validate'"
spec_run "$W" lsit
spec_expect_grep "lsit: suggestion" "$T/err" "Did you mean 'skit list'"
spec_run "$W" frobnicate
spec_expect_rc "frobnicate" 2
if grep -q "Did you mean" "$T/err"; then spec_fail "frobnicate: suggestion for a far word"; else spec_pass; fi
spec_run "$W" --frob
spec_expect_rc "--frob" 2
spec_expect_grep "--frob: named" "$T/err" "unknown option '--frob'"

# --- options anywhere (GNU getopt permutation), and '--'
spec_run "$W" init csv-tools --description "Summarise CSV files. Use when asked about a .csv."
spec_expect_rc "init NAME --description" 0
spec_expect_grep "init: description used" "$W/csv-tools/SKILL.md" "Summarise CSV files."
if grep -q '^license:' "$W/csv-tools/SKILL.md"; then spec_fail "init: license without --license"; else spec_pass; fi
spec_run "$W" init licensed --license 'Apache-2.0 OR MIT'
spec_expect_rc "init --license" 0
spec_expect_grep "init: license written" "$W/licensed/SKILL.md" "license: Apache-2.0 OR MIT"
spec_run "$W" validate licensed
spec_expect_rc "init --license: validates" 0
spec_run "$W" init bad --license 'x: y'
spec_expect_rc "init --license with YAML syntax" 2
spec_run "$W" init -- -dash
spec_expect_rc "init -- -dash: not an option" 2
spec_expect_grep "init -- -dash: the name is judged" "$T/err" "'-dash' is not a valid skill name"
spec_run "$W" read-properties csv-tools --help
spec_expect_rc "read-properties PATH --help" 0

# --- invalid names get a suggestion
spec_run "$W" init "Csv_Tools"
spec_expect_rc "init Csv_Tools" 2
spec_expect_grep "init: suggested name" "$T/err" "try 'csv-tools'"

# --- unknown options name the right word and suggest the closest
spec_run "$W" init -21risk-automation
spec_expect_rc "init -21risk" 2
spec_expect_grep "init -21risk: the word" "$T/err" "'-21risk-automation'"
spec_expect_grep "init -21risk: the hint" "$T/err" "put '--' before"
spec_run "$W" init x --descriptoin y
spec_expect_grep "init --descriptoin: did you mean" "$T/err" "did you mean '--description'?"
spec_run "$W" init x --dir
spec_expect_rc "init --dir without value" 2
spec_expect_grep "init --dir: needs a value" "$T/err" "option '--dir' needs a value"

# --- no model configured: how to choose one, exit 2
for verb in run chat; do
	(cd "$W" && env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u SKIT_MODEL \
		-u SKIT_CASSETTE "$SKIT" $verb --no-audit $([ $verb = run ] && echo hello)) \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
	spec_expect_rc "$verb without a model" 2
	spec_expect_grep "$verb without a model: says so" "$T/err" "no model configured"
	for word in OPENAI_API_KEY OPENAI_BASE_URL ANTHROPIC_API_KEY --model SKIT_MODEL replay:; do
		spec_expect_grep "$verb without a model: names $word" "$T/err" "$word"
	done
	if grep -q "needs a cassette" "$T/err"; then spec_fail "$verb: cassette message"; else spec_pass; fi
done

# --- a --root that does not exist is missing input (doctor reports it)
for verb in list show search; do
	arg=""
	[ $verb = list ] || arg=x
	spec_run "$W" $verb --root "$W/no-such-root" $arg
	spec_expect_rc "$verb --root missing" 2
	spec_expect_grep "$verb --root missing: named" "$T/err" "no-such-root"
done
spec_run "$W" doctor --root "$W/no-such-root"
if grep -q "no-such-root" "$T/out"; then spec_pass; else spec_fail "doctor: the missing root is reported"; fi

spec_done
