#!/bin/sh
# `make demo`: the authoring tour over the bundled example skills.
# Usage: scripts/demo.sh path/to/skit
set -eu
SKIT=${1:-build/skit}
cd "$(dirname "$0")/.."
ROOT=examples/skills

step() {
	printf '\n\033[1m$ %s\033[0m\n' "$*"
	"$@"
}

echo "skit demo: the example skills in $ROOT"
step "$SKIT" validate --strict "$ROOT"/*/
step "$SKIT" list --root "$ROOT"
step "$SKIT" to-prompt --format markdown "$ROOT"/*/
step "$SKIT" to-prompt --budget 120tok "$ROOT"/*/
step "$SKIT" search --root "$ROOT" "summarise a csv file"
step "$SKIT" show --root "$ROOT" csv-report
echo
echo "demo: done. Try 'skit init my-skill' and 'skit validate my-skill'."
