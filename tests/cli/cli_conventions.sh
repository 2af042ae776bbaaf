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
spec_run "$W" init ./csv-tools --description "Summarise CSV files. Use when asked about a .csv."
spec_expect_rc "init NAME --description" 0
spec_expect_grep "init: description used" "$W/csv-tools/SKILL.md" "Summarise CSV files."
if grep -q '^license:' "$W/csv-tools/SKILL.md"; then spec_fail "init: license without --license"; else spec_pass; fi
spec_run "$W" init ./licensed --license 'Apache-2.0 OR MIT'
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

# ---------------------------------------------------------------------
# Every command: options after operands (GNU permutation), '--', and the
# unknown-option error through one function (the word, the suggestion,
# a missing value). The user roots are a scratch HOME.
export HOME="$W/home"
mkdir -p "$HOME"
spec_run "$W" init ./good --description "Does good things. Use when asked for good."
spec_expect_rc "init good" 0
# verb : a word before the options : a typo : the option it suggests
while IFS=: read -r verb arg typo want; do
	[ -n "$verb" ] || continue
	# shellcheck disable=SC2086
	spec_run "$W" $verb $arg --help
	spec_expect_rc "$verb $arg --help (option after an operand)" 0
	spec_expect_grep "$verb $arg --help: the help" "$T/out" "usage: skit"
	# shellcheck disable=SC2086
	spec_run "$W" $verb $arg --frobnicate
	spec_expect_rc "$verb --frobnicate" 2
	spec_expect_grep "$verb --frobnicate: named" "$T/err" "unknown option '--frobnicate'"
	if grep -q "did you mean" "$T/err"; then spec_fail "$verb --frobnicate: a far word got a suggestion"; else spec_pass; fi
	# shellcheck disable=SC2086
	spec_run "$W" $verb $arg --$typo
	spec_expect_rc "$verb --$typo" 2
	spec_expect_grep "$verb --$typo: did you mean" "$T/err" "did you mean '--$want'?"
	spec_expect_grep "$verb --$typo: try help" "$T/err" "Try 'skit $verb --help'."
done <<'EOF2'
validate:good:strct:strict
read-properties:good:jsn:json
to-prompt:good:budgt:budget
init:x:licnse:license
list::instaled:installed
show:good:surce:source
search:good:jsno:json
doctor::strikt:strict
run:hello:mdoel:model
chat::mdoel:model
runs list::jsn:json
runs show:last:jsn:json
runs prune::kep:keep
pack:good:outptu:output
install:good:forec:force
uninstall:good:scoep:scope
update::dry-rn:dry-run
verify::jsn:json
keygen:k:jsn:json
eval:good:repotr:report
mcp::orgin:origin
EOF2

# a value-taking option at the end: "needs a value", for each kind
for cv in "validate good --format" "to-prompt good --budget" "pack good --output" \
	"pack good -o" "show good --source" "search x -k" "list --scope" \
	"run hello --model" "eval good --report" "runs list -n" "install good --scope"; do
	# shellcheck disable=SC2086
	spec_run "$W" $cv
	spec_expect_rc "$cv (no value)" 2
	spec_expect_grep "$cv: needs a value" "$T/err" "option '${cv##* }' needs a value"
done

# a short option cluster names the whole word and the '--' hint
for verb in validate to-prompt show pack; do
	spec_run "$W" $verb -21risk-automation
	spec_expect_rc "$verb -21risk" 2
	spec_expect_grep "$verb -21risk: the word" "$T/err" "'-21risk-automation'"
	spec_expect_grep "$verb -21risk: the hint" "$T/err" "put '--' before"
done

# options after paths, and '--' for a folder whose name starts with '-'
mkdir -p "$W/dash"
spec_run "$W/dash" init -- -x
spec_expect_rc "init -- -x: an invalid name" 2
cp -r "$W/good" "$W/dash/-good"
spec_run "$W/dash" validate -- -good
spec_expect_rc "validate -- -good: judged as a skill" 1
spec_expect_grep "validate -- -good: the folder judged" "$T/err" "Directory name '-good' must match"
spec_run "$W/dash" validate --lenient -- -good
spec_expect_rc "validate --lenient -- -good" 0
spec_expect_grep "validate --lenient -- -good: validated" "$T/out" "Valid skill: -good"
spec_run "$W/dash" to-prompt -- -good
spec_expect_rc "to-prompt -- -good" 0
spec_expect_grep "to-prompt -- -good: rendered" "$T/out" "/dash/-good/SKILL.md"
spec_run "$W/dash" read-properties -- -good
spec_expect_rc "read-properties -- -good" 0
spec_run "$W/dash" validate -good
spec_expect_rc "validate -good: an option cluster" 2
spec_run "$W" validate good --strict -q
spec_expect_rc "validate PATH --strict -q" 0
spec_expect_lines "validate PATH -q: quiet" "$T/out" 0
spec_run "$W" to-prompt good --format json
spec_expect_rc "to-prompt PATH --format json" 0
spec_expect_grep "to-prompt PATH --format: applied" "$T/out" '"skills":'

# ---------------------------------------------------------------------
# --json on every command that prints results (long forms kept)
spec_run "$W" validate --json good
spec_expect_rc "validate --json" 0
spec_expect_grep "validate --json: JSON" "$T/out" '"valid": true'
spec_run "$W" validate --format json good
"$SKIT" validate --json "$W/good" >"$T/a" 2>&1
"$SKIT" validate --format json "$W/good" >"$T/b" 2>&1
if cmp -s "$T/a" "$T/b"; then spec_pass; else spec_fail "validate --json differs from --format json"; fi
spec_run "$W" to-prompt --json good
spec_expect_grep "to-prompt --json: JSON" "$T/out" '"skills":'
spec_run "$W" init ./made --json
spec_expect_rc "init --json" 0
spec_expect_grep "init --json: name" "$T/out" '"name": "made"'
spec_expect_grep "init --json: file" "$T/out" '"file": "./made/SKILL.md"'
spec_run "$W" read-properties --json good
spec_expect_rc "read-properties --json" 0
spec_expect_grep "read-properties --json: JSON" "$T/out" '"name": "good"'
spec_run "$W" keygen --json "$W/key"
spec_expect_rc "keygen --json" 0
spec_expect_grep "keygen --json: key id" "$T/out" '"key_id": "'
spec_expect_grep "keygen --json: public key" "$T/out" '"public_key": "'"$W/key.pub"'"'
mkdir -p "$HOME/.agents/skills"
for cv in "list" "show --root $W good" "search --root $W good" "doctor" "runs list" "verify --scope user" \
	"pack good -o $W/good.skill"; do
	# shellcheck disable=SC2086
	spec_run "$W" $cv --json
	if [ "$rc" -le 1 ]; then spec_pass; else spec_fail "$cv --json: exit $rc"; fi
	case $(head -c 1 "$T/out") in
	'{' | '[') spec_pass ;;
	*) spec_fail "$cv --json: not JSON: $(head -c 60 "$T/out") $(head -c 200 "$T/err")" ;;
	esac
done

# ---------------------------------------------------------------------
# exit codes: 2 for usage and missing input, 1 for findings
for cv in "show nosuch" "runs show zzz" "runs show zzz --runs-dir $W" \
	"runs list --runs-dir $W/no-runs" "runs prune --keep 1 --runs-dir $W/no-runs" \
	"list --installed --root $W/no-root" "pack $W/no-dir -o $W/x.skill" \
	"validate $W/no-dir" "to-prompt $W/no-dir" "read-properties $W/no-dir" \
	"eval $W/no-dir" "uninstall nosuch" "verify nosuch" "help nosuch" "nosuch"; do
	# shellcheck disable=SC2086
	spec_run "$W" $cv
	spec_expect_rc "$cv: missing input" 2
	if [ -s "$T/err" ]; then spec_pass; else spec_fail "$cv: nothing said"; fi
done
printf -- '---\nname: broken\n---\n' >"$T/SKILL.md"
mkdir -p "$W/broken" && cp "$T/SKILL.md" "$W/broken/"
spec_run "$W" validate broken
spec_expect_rc "validate an invalid skill: a finding" 1
spec_run "$W" to-prompt good broken
spec_expect_rc "to-prompt an invalid skill: a failure" 1

# ---------------------------------------------------------------------
# to-prompt names the skill that failed (both rule sets)
spec_expect_grep "to-prompt: names the skill" "$T/err" "skit to-prompt: broken: Missing required field"
spec_run "$W" to-prompt good --strict broken
spec_expect_rc "to-prompt --strict: a failure" 1
spec_expect_grep "to-prompt --strict: the reference's message" "$T/err" "skit to-prompt: Missing required field"

# ---------------------------------------------------------------------
# validate on a folder of skills; -r; a missing path among several
mkdir -p "$W/shelf"
cp -r "$W/good" "$W/shelf/one"
cp -r "$W/good" "$W/shelf/two"
sed -i 's/^name: good/name: one/' "$W/shelf/one/SKILL.md"
sed -i 's/^name: good/name: two/' "$W/shelf/two/SKILL.md"
spec_run "$W" validate shelf
spec_expect_rc "validate a folder of skills" 2
spec_expect_grep "validate shelf: says so" "$T/err" "this folder holds 2 skills; try skit validate shelf/*"
spec_run "$W" validate -r shelf
spec_expect_rc "validate -r shelf" 0
spec_expect_grep "validate -r: one" "$T/out" "Valid skill: shelf/one"
spec_expect_grep "validate -r: two" "$T/out" "Valid skill: shelf/two"
cp -r "$W/broken" "$W/shelf/broken"
spec_run "$W" validate shelf --recursive
spec_expect_rc "validate -r with an invalid skill" 1
spec_run "$W" validate good no-such-one shelf/one
spec_expect_rc "validate with one missing path" 2
spec_expect_grep "validate: the missing one" "$T/err" "no-such-one"
spec_expect_grep "validate: the first still checked" "$T/out" "Valid skill: good"
spec_expect_grep "validate: the last still checked" "$T/out" "Valid skill: shelf/one"

# ---------------------------------------------------------------------
# init's placeholder description fails --strict (a lint warning)
spec_run "$W" init ./placeholder
spec_expect_rc "init without --description" 0
spec_run "$W" validate placeholder
spec_expect_rc "placeholder: valid by default" 0
spec_expect_grep "placeholder: the warning" "$T/err" "[description-placeholder]"
spec_run "$W" validate --strict placeholder
spec_expect_rc "placeholder: --strict fails" 1
spec_run "$W" validate --strict good
spec_expect_rc "a real description: --strict passes" 0

# ---------------------------------------------------------------------
# list: a broken project copy that falls back to the user copy says so
mkdir -p "$W/fb/p/dup" "$W/fb/u/dup"
cp "$T/SKILL.md" "$W/fb/p/dup/SKILL.md"
sed -i 's/^name: broken/name: dup/' "$W/fb/p/dup/SKILL.md"
sed 's/^name: good/name: dup/' "$W/good/SKILL.md" >"$W/fb/u/dup/SKILL.md"
spec_run "$W" list --root "project=$W/fb/p" --root "user=$W/fb/u"
spec_expect_rc "list with a fallback" 0
spec_expect_grep "list: the user copy listed" "$T/out" "dup"
grep "broken" "$T/err" >"$T/fb" || true
spec_expect_lines "list: one line about the fallback" "$T/fb" 1
spec_expect_grep "list fallback: the broken copy" "$T/fb" "$W/fb/p/dup"
spec_expect_grep "list fallback: the copy used" "$T/fb" "using the user copy: $W/fb/u/dup"

# ---------------------------------------------------------------------
# doctor: the npx skills layout is information; --strict fails warnings
mkdir -p "$W/np/.git" "$W/np/.agents/skills" "$W/np/.claude/skills"
cp -r "$W/good" "$W/np/.agents/skills/good"
ln -s ../../.agents/skills/good "$W/np/.claude/skills/good"
spec_run "$W/np" doctor
spec_expect_rc "doctor on the npx skills layout" 0
spec_expect_grep "doctor: the link is information" "$T/out" "info $W/np/.claude/skills/good"
spec_expect_grep "doctor: no problem" "$T/out" "No problems found."
spec_run "$W/np" doctor --json
spec_expect_rc "doctor --json on the npx skills layout" 0
spec_expect_grep "doctor --json: info severity" "$T/out" '"severity": "info"'
spec_expect_grep "doctor --json: no warnings" "$T/out" '"warnings": 0'
spec_run "$W/np" doctor --strict
spec_expect_rc "doctor --strict: information never fails" 0
# a warning (a dangling link): exit 0, and 1 with --strict
ln -s ../nowhere "$W/np/.agents/skills/dangling"
spec_run "$W/np" doctor
spec_expect_rc "doctor with a warning only" 0
spec_expect_grep "doctor: the warning counted" "$T/out" "0 errors, 1 warning."
spec_run "$W/np" doctor --strict
spec_expect_rc "doctor --strict with a warning" 1
# an error (a skipped skill): exit 1 without --strict
cp -r "$W/broken" "$W/np/.agents/skills/broken"
spec_run "$W/np" doctor
spec_expect_rc "doctor with an error" 1

# --- install of a source that is not there: missing input
spec_run "$W" install --root "$W/inst-root" "$W/no-such-pack.zip"
spec_expect_rc "install of a missing path" 2
spec_expect_grep "install of a missing path: named" "$T/err" "no-such-pack.zip"

# --- retries are visible in the trace, not silent
printf '%s\n' '{"status": 429, "retry_after": 0}' '{"text": "AFTER-RETRY"}' >"$T/answers"
python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" "$T/answers" "$T/port" "$T/stub.log" &
stub=$!
n=0
# at most 60 s: a loaded machine may be slow to start python
while [ ! -s "$T/port" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
mkdir -p "$W/proj/.agents"
(cd "$W/proj" && OPENAI_API_KEY=sk-test OPENAI_BASE_URL="http://127.0.0.1:$(cat "$T/port")/v1" \
	"$SKIT" run --no-audit --trace --model openai:gpt-test "hello") >"$T/out" 2>"$T/err" </dev/null
rc=$?
kill $stub 2>/dev/null
spec_expect_rc "run after a 429" 0
spec_expect_grep "retry in the trace" "$T/err" "retry 1/4 in"
spec_expect_grep "retry names the status" "$T/err" "HTTP 429"
spec_expect_grep "the answer after the retry" "$T/out" "AFTER-RETRY"

spec_done
