#!/bin/sh
# `make demo`: the authoring tour over the bundled example skills, then the
# agent end to end with the offline replay model and a bundled cassette.
# Usage: scripts/demo.sh path/to/skit
set -eu
SKIT=${1:-build/skit}
cd "$(dirname "$0")/.."
ROOT=examples/skills

# Bold command lines on a terminal only, and never with NO_COLOR.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
	BOLD=$(printf '\033[1m') PLAIN=$(printf '\033[0m')
else
	BOLD="" PLAIN=""
fi

step() {
	printf '\n%s$ %s%s\n' "$BOLD" "$*" "$PLAIN"
	"$@"
}

echo "skit demo: the example skills in $ROOT"
step "$SKIT" validate --strict "$ROOT"/*/
step "$SKIT" list --root "$ROOT"
step "$SKIT" to-prompt --format markdown "$ROOT"/*/
step "$SKIT" to-prompt --budget 120tok "$ROOT"/*/
step "$SKIT" search --root "$ROOT" "summarise a csv file"
step "$SKIT" show --root "$ROOT" csv-report

# The agent: the recorded model activates csv-report, reads one of its
# references, runs its script and answers. Nothing leaves this machine.
# --yes approves the script run (without a terminal skit would refuse it
# and print the command line that approves it); --workdir . lets the
# sandboxed script work in this folder, where the CSV is, instead of a
# fresh folder of its own.
RUNS=$(cd "$(dirname "$SKIT")" && pwd)/demo-runs
step "$SKIT" run --yes --workdir . --root "$ROOT" \
	--model replay:examples/cassettes/csv-report.jsonl --runs-dir "$RUNS" --trace \
	"Summarise examples/skills/csv-report/assets/sample.csv: what is in it?"
step "$SKIT" runs list --runs-dir "$RUNS" -n 3
echo
echo "demo: done. The audit trail of that run is in $RUNS"
echo "(see it with: $SKIT runs show last --runs-dir $RUNS)."
echo "Try 'skit init my-skill' and 'skit validate my-skill'."
