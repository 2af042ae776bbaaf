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
# comment (README.md says so above the tour; tour_lib.inc has the rules):
# no mark is exit 0, "# exit N" is N, "# needs ..." names what this
# machine lacks (a host, an API key) and only asks for a clean failure.
# Keep the "needs" lines few: each is a line this test cannot prove.
#
# Afterwards the checkout copy holds no new file: the tour works in its
# own scratch project.
. "$(dirname "$0")/registry_lib.inc"
. "$(dirname "$0")/tour_lib.inc"
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

tour_clone
tour_run "$T/lines" "$T"
tour_check "$T/lines" "$T"

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
