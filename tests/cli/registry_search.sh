#!/bin/sh
# SPDX-License-Identifier: MIT
# registry_search.sh - `skit search QUERY`: BM25 ranking, -k, --body,
# --json, usage errors.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

skill r pdf-tools "Extract text and tables from documents."
skill r csv-tools "Clean CSV files; can also read a PDF."
skill r weather "Forecasts for a city."
mkdir -p r/notes
printf -- '---\nname: notes\ndescription: Take notes.\n---\nThe zanzibar word is only here.\n' \
	>r/notes/SKILL.md

run search --help
expect_rc 0 "search --help"
has "$T/out" "usage: skit search QUERY" "search --help"
has "$T/out" "--body" "search --help"

run search
expect_rc 2 "search without QUERY"
has "$T/err" "missing QUERY" "search without QUERY"
run search pdf -k 0 --root r
expect_rc 2 "-k 0"
run search pdf -k x --root r
expect_rc 2 "-k x"
has "$T/err" "-k needs a number" "-k x message"
run search pdf -k
expect_rc 2 "-k without a value"

run search pdf --root r
expect_rc 0 "search pdf"
lines "$T/out" 2 "search pdf: two matches"
head -n 1 "$T/out" | grep -q '^ *[0-9][0-9.]*  pdf-tools  root  Extract' &&
	reg_pass || reg_fail "search: name match ranks first, with its score"
sed -n 2p "$T/out" | grep -q 'csv-tools' && reg_pass ||
	reg_fail "search: description match second"

run search pdf -k 1 --root r
lines "$T/out" 1 "search -k 1"
run search PDF tools --root r
head -n 1 "$T/out" | grep -q 'pdf-tools' && reg_pass ||
	reg_fail "search: words of several arguments are joined"

run search zanzibar --root r
expect_rc 0 "search with no match"
lines "$T/out" 0 "search with no match prints nothing"
has "$T/err" "no match" "search: no match note"
run search zanzibar --body --root r
lines "$T/out" 1 "search --body"
has "$T/out" "notes" "search --body finds body words"

run search "pdf" --json --root r
expect_rc 0 "search --json"
json_ok "$T/out" "search --json"
has "$T/out" '"rank": 1' "search --json rank"
has "$T/out" '"name": "pdf-tools"' "search --json name"
has "$T/out" '"score": ' "search --json score"
run search zanzibar --json --root r
has "$T/out" "[]" "search --json with no match"

reg_done
