#!/bin/sh
# spec_prompt.sh - `skit to-prompt PATH...` (default XML) is byte-identical
# to skills-ref's: resolved absolute <location> (not escaped), html.escape of
# name and description, one block per argument in argument order, no
# validation; a failing skill aborts with exit 1, nothing on stdout and
# "skit to-prompt: MESSAGE" (SPEC-RULES.md section 5 and 7).
#
# Expected files hold @DIR@ where the reference printed the resolved case
# directory; it is replaced by this run's `pwd -P`.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup
spec_make_cases "$W"
spec_prompt_expected

# expected_of CASE : the expected output, @DIR@ substituted.
expected_of() {
	cat "$T/exp/$1.prompt"
}

# --- every case, one path
spec_cases >"$T/cases"
while IFS='|' read -r id cwd arg kind; do
	spec_expand "$id" "$cwd" || { spec_fail "$id: bad case"; continue; }
	c=$REPLY
	spec_expand "$id" "$arg"
	a=$REPLY
	spec_run "$W/$id/$c" to-prompt --strict "$a"
	spec_no_crash "$id" || continue
	case $kind in
	exact)
		spec_diff "$T/exp/$id.prompt" "$id: to-prompt"
		;;
	yaml*)
		# C10: a skill whose frontmatter does not parse is never listed.
		spec_expect_rc "$id: to-prompt" 1
		spec_expect_empty "$id: to-prompt stdout" "$T/out"
		case $(head -n 1 "$T/err") in
		"skit to-prompt: Invalid YAML in frontmatter: "?*) spec_pass ;;
		*) spec_fail "$id: to-prompt stderr: $(head -c 300 "$T/err")" ;;
		esac
		;;
	esac
done <"$T/cases"

# --- several paths: blocks in argument order, duplicates kept
# blocks CASE... : the <skill> blocks of the single-path expectations.
blocks() {
	for _c; do
		expected_of "$_c" | sed -n '/^<skill>$/,/^<\/skill>$/p'
	done
}
multi() { # LABEL CASE...
	_label=$1
	shift
	_list="$*"
	{
		echo "exit 0"
		echo "--- stdout"
		echo "<available_skills>"
		blocks "$@"
		echo "</available_skills>"
		echo "--- stderr"
	} >"$T/expected"
	set --
	for _c in $_list; do
		set -- "$@" "$_c/$(spec_arg "$_c" @)"
	done
	spec_run "$W" to-prompt --strict "$@"
	spec_no_crash "$_label" && spec_diff "$T/expected" "$_label"
}

multi "to-prompt: three paths" valid-basic name-cjk loc-lowercase-file
multi "to-prompt: argument order is kept" loc-lowercase-file name-cjk valid-basic
multi "to-prompt: a path given twice is listed twice" valid-basic valid-basic

# SKILL.md file arguments mixed with folders.
{
	echo "exit 0"
	echo "--- stdout"
	echo "<available_skills>"
	blocks loc-file-arg valid-all-fields
	echo "</available_skills>"
	echo "--- stderr"
} >"$T/expected"
spec_run "$W" to-prompt --strict loc-file-arg/file-arg/SKILL.md valid-all-fields/all-fields
spec_no_crash "to-prompt: file and folder" &&
	spec_diff "$T/expected" "to-prompt: a SKILL.md argument and a folder"

# One failing skill aborts the whole command: nothing on stdout.
spec_run "$W" to-prompt --strict valid-basic/my-skill loc-missing/no-skill-md \
	"name-cjk/$(spec_arg name-cjk @)"
spec_no_crash "to-prompt: one missing SKILL.md" && {
	printf 'exit 1\n--- stdout\n--- stderr\nskit to-prompt: SKILL.md not found in %s/loc-missing/no-skill-md\n' \
		"$W" >"$T/expected"
	spec_diff "$T/expected" "to-prompt: one failing skill aborts"
}
spec_run "$W" to-prompt --strict valid-basic/my-skill yaml-duplicate-key/duplicate-key
spec_no_crash "to-prompt: one invalid YAML" && {
	spec_expect_rc "to-prompt: one invalid YAML" 1
	spec_expect_empty "to-prompt: one invalid YAML: stdout" "$T/out"
}

# Symbolic links are resolved in <location>.
mkdir -p "$W/links"
ln -s ../valid-basic/my-skill "$W/links/alias"
spec_run "$W/links" to-prompt --strict alias
spec_no_crash "to-prompt: symlinked folder" && {
	expected_of valid-basic >"$T/expected"
	spec_diff "$T/expected" "to-prompt: a symlinked folder shows the resolved location"
}

# --format xml is the default.
spec_run "$W/valid-basic" to-prompt --format xml my-skill
spec_no_crash "to-prompt --format xml" &&
	spec_diff "$T/exp/valid-basic.prompt" "to-prompt --format xml is the reference's output"

# An absolute path argument gives the same output.
spec_run / to-prompt "$W/valid-basic/my-skill"
spec_no_crash "to-prompt: absolute path" && {
	expected_of valid-basic >"$T/expected"
	spec_diff "$T/expected" "to-prompt: absolute path argument"
}

spec_done
