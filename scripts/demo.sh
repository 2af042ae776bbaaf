#!/bin/sh
# `make demo`: the authoring tour over the bundled example skills, then the
# agent end to end with the offline replay model and a bundled cassette.
# Usage: scripts/demo.sh path/to/skit
set -eu
SKIT=${1:-build/skit}
SKIT=$(cd "$(dirname "$SKIT")" && pwd)/$(basename "$SKIT")
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

# The agent, as in the README: a project holding data.csv; the recorded
# model activates csv-report, reads one of its references, runs its
# script (which writes report.md into the project), reads report.md back
# with a shell call and answers. Nothing leaves this machine. --yes
# approves the script and the shell call (without a terminal skit would
# refuse them and print the command line that approves them). The project
# is a fresh folder next to the binary; the audit trail goes to its
# .agents/runs.
TOP=$(pwd)
PROJ=$(dirname "$SKIT")/demo-project
rm -rf "$PROJ"
mkdir -p "$PROJ/.agents"
cp "$ROOT/csv-report/assets/sample.csv" "$PROJ/data.csv"
cd "$PROJ"
step "$SKIT" run --yes --root "$TOP/$ROOT" \
	--model "replay:$TOP/examples/cassettes/csv-report.jsonl" --trace \
	"Summarise data.csv"
step head -n 8 report.md
step "$SKIT" runs list -n 3
echo
echo "demo: done. The project is $PROJ: data.csv, the report.md the"
echo "script wrote, and the audit trail in .agents/runs (see it with:"
echo "cd $PROJ && $SKIT runs show last)."
# The tour in README.md types a bare `skit`: say how to get there.
BIN=$(dirname "$SKIT")
echo
echo "skit is $SKIT. To type 'skit' as the README's tour does:"
echo "  export PATH=\"$BIN:\$PATH\"   # in this shell"
echo "  sudo cmake --install $BIN   # for good: into the build's prefix (/usr/local)"
echo "Then follow the tour (README.md, 'A short tour'), starting with"
echo "'skit init my-skill' in a project of yours."
