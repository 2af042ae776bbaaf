#!/bin/sh
# spec_validate.sh - `skit validate --format reference` gives the verdicts
# and messages of skills-ref, byte for byte, for every case of
# tests/fixtures/spec/cases.txt (SPEC-RULES.md sections 1-3 and 7).
#
# YAML syntax errors ("yaml" cases) only need the prefix
# "Invalid YAML in frontmatter:" (skit words the parser error itself) and,
# for the strictyaml rejections, strictyaml's wording.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup
spec_make_cases "$W"

spec_cases >"$T/cases"
while IFS='|' read -r id cwd arg kind; do
	spec_expand "$id" "$cwd" || { spec_fail "$id: bad case"; continue; }
	c=$REPLY
	spec_expand "$id" "$arg"
	a=$REPLY
	spec_run "$W/$id/$c" validate --format reference "$a"
	spec_no_crash "$id" || continue
	case $kind in
	exact)
		spec_diff "$SPEC_EXP/$id.validate" "$id: validate --format reference"
		;;
	yaml*)
		spec_expect_rc "$id" 1
		spec_expect_empty "$id: stdout" "$T/out"
		first=$(sed -n 1p "$T/err")
		second=$(sed -n 2p "$T/err")
		if [ "$first" = "Validation failed for $a:" ]; then
			spec_pass
		else
			spec_fail "$id: first stderr line: '$first'"
		fi
		case $second in
		"  - Invalid YAML in frontmatter: "?*) spec_pass ;;
		*) spec_fail "$id: expected '  - Invalid YAML in frontmatter: ...', got '$second'" ;;
		esac
		# skit's message is one line: exactly two lines on stderr.
		spec_expect_lines "$id: one-line YAML error" "$T/err" 2
		case $kind in
		yaml:*) spec_expect_grep "$id: strictyaml wording" "$T/err" "${kind#yaml:}" ;;
		esac
		;;
	esac
done <"$T/cases"

spec_done
