#!/bin/sh
# spec_props.sh - `skit read-properties PATH` prints skills-ref's JSON byte
# for byte (json.dumps(indent=2), ASCII escapes, the reference's key order
# and omissions, nested metadata as Python str()), or fails with exit 1 and
# "skit read-properties: MESSAGE" where MESSAGE is the reference's
# (SPEC-RULES.md section 4), for every case of tests/fixtures/spec/cases.txt.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup
spec_make_cases "$W"

spec_cases >"$T/cases"
while IFS='|' read -r id cwd arg kind; do
	spec_expand "$id" "$cwd" || { spec_fail "$id: bad case"; continue; }
	c=$REPLY
	spec_expand "$id" "$arg"
	a=$REPLY
	spec_run "$W/$id/$c" read-properties "$a"
	spec_no_crash "$id" || continue
	case $kind in
	exact)
		spec_diff "$SPEC_EXP/$id.props" "$id: read-properties"
		;;
	yaml*)
		spec_expect_rc "$id: read-properties" 1
		spec_expect_empty "$id: read-properties stdout" "$T/out"
		spec_expect_lines "$id: read-properties one line" "$T/err" 1
		case $(cat "$T/err") in
		"skit read-properties: Invalid YAML in frontmatter: "?*) spec_pass ;;
		*) spec_fail "$id: read-properties stderr: $(head -c 300 "$T/err")" ;;
		esac
		case $kind in
		yaml:*) spec_expect_grep "$id: strictyaml wording" "$T/err" "${kind#yaml:}" ;;
		esac
		;;
	esac
done <"$T/cases"

spec_done
