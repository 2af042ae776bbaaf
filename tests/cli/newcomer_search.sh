#!/bin/sh
# newcomer_search.sh - `skit search` ranks by the words that matter (issue
# 35, point 12), on a user's path: a project made with `git init`, the
# example skills installed into it, HOME a scratch folder, no terminal.
# "summarise a spreadsheet" finds the skills that summarise, and no skill
# only for holding "a"; a query of stop words alone still answers.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
EX=$SKIT_SOURCE_DIR/examples/skills
mkdir -p "$W/proj" && cd "$W/proj" && git init -q . || exit 1
for s in csv-report code-review git-changelog pdf-text; do
	"$SKIT" install "$EX/$s" >/dev/null 2>&1 </dev/null ||
		reg_fail "install $s"
done

run search "summarise a spreadsheet" </dev/null
expect_rc 0 "search with a stop word"
has "$T/out" "csv-report" "the summarising skill is found"
lacks "$T/out" "git-changelog" "no skill ranks for the word 'a'"
lacks "$T/out" "pdf-text" "no skill ranks for the word 'a' (pdf-text)"
first=$(awk 'NR == 1 { print $2 }' "$T/out")
[ "$first" = csv-report ] && reg_pass || reg_fail "first hit is $first, not csv-report"

run search --json "the changelog of a release" </dev/null
expect_rc 0 "search --json with stop words"
json_ok "$T/out" "search --json"
n=$(grep -c '"rank"' "$T/out")
[ "$n" = 1 ] && reg_pass || reg_fail "'the changelog of a release' matched $n skills, expected git-changelog alone"
has "$T/out" '"name": "git-changelog"' "changelog found"

# Only stop words: still an answer rather than nothing.
run search "what is it" </dev/null
expect_rc 0 "a query of stop words only"
[ -s "$T/out" ] && reg_pass || reg_fail "a query of stop words only found nothing"
reg_done
