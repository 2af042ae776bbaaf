#!/bin/sh
# spec_cli.sh - the command-line contract around the reference behaviour
# (SPEC-RULES.md section 7): exit 2 and a one-line error naming the path
# for a missing path (not click's text), exit 2 for usage errors, several
# PATHs for validate, "--" before a path that starts with "-", absolute
# paths printed as given.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup
spec_make_cases "$W"

# usage_error LABEL : exit 2, nothing on stdout, no crash.
usage_error() {
	spec_no_crash "$1" || return
	spec_expect_rc "$1" 2
	spec_expect_empty "$1: stdout" "$T/out"
	if [ -s "$T/err" ]; then spec_pass; else spec_fail "$1: no message"; fi
}

# --- a missing path: exit 2, one line naming it
for verb in validate read-properties to-prompt; do
	spec_run "$W" "$verb" no-such-skill
	usage_error "$verb: missing path"
	spec_expect_lines "$verb: missing path: one line" "$T/err" 1
	spec_expect_grep "$verb: missing path: named" "$T/err" "no-such-skill"
	if grep -q '^Usage:\|^Try ' "$T/err"; then
		spec_fail "$verb: missing path: click's usage text"
	else
		spec_pass
	fi
done
spec_run "$W" validate --format reference no-such-skill
usage_error "validate --format reference: missing path"
spec_expect_grep "validate --format reference: missing path: named" "$T/err" "no-such-skill"
# --format reference refuses missing paths before checking any, as the
# reference does; the default format reports them and checks the others.
spec_run "$W" validate --format reference valid-basic/my-skill no-such-skill
usage_error "validate --format reference: one missing path among several"
spec_expect_grep "validate --format reference: missing path named" "$T/err" "no-such-skill"
spec_run "$W" validate valid-basic/my-skill no-such-skill
spec_expect_rc "validate: one missing path among several" 2
spec_expect_grep "validate: missing path named" "$T/err" "no-such-skill"
spec_expect_grep "validate: the other path checked" "$T/out" "Valid skill: valid-basic/my-skill"
# to-prompt checks every path before printing anything.
spec_run "$W" to-prompt valid-basic/my-skill no-such-skill
usage_error "to-prompt: one missing path among several"
spec_expect_grep "to-prompt: missing path named" "$T/err" "no-such-skill"

# --- no path, extra path, unknown option, bad format
for verb in validate read-properties to-prompt; do
	spec_run "$W" "$verb"
	usage_error "$verb: no path"
	spec_run "$W" "$verb" --no-such-option valid-basic/my-skill
	usage_error "$verb: unknown option"
done
spec_run "$W" read-properties valid-basic/my-skill valid-all-fields/all-fields
usage_error "read-properties: two paths"
spec_run "$W" validate --format no-such-format valid-basic/my-skill
usage_error "validate: unknown --format"
spec_run "$W" to-prompt --format no-such-format valid-basic/my-skill
usage_error "to-prompt: unknown --format"

# --- several paths for validate, in order; exit 1 if any fails
spec_run "$W" validate --format reference valid-basic/my-skill valid-all-fields/all-fields
spec_no_crash "validate: two valid" && {
	printf 'exit 0\n--- stdout\nValid skill: valid-basic/my-skill\nValid skill: valid-all-fields/all-fields\n--- stderr\n' >"$T/expected"
	spec_diff "$T/expected" "validate --format reference: two valid paths"
}
spec_run "$W" validate --format reference valid-basic/my-skill name-upper/My-Skill
spec_no_crash "validate: valid + invalid" && {
	printf 'exit 1\n--- stdout\nValid skill: valid-basic/my-skill\n--- stderr\nValidation failed for name-upper/My-Skill:\n  - Skill name '"'"'My-Skill'"'"' must be lowercase\n' >"$T/expected"
	spec_diff "$T/expected" "validate --format reference: valid + invalid"
}
spec_run "$W" validate --format reference name-upper/My-Skill valid-basic/my-skill
spec_expect_rc "validate: invalid first still exits 1" 1
spec_expect_grep "validate: the valid one after an invalid one" "$T/out" \
	"Valid skill: valid-basic/my-skill"
spec_run "$W" validate name-upper/My-Skill valid-basic/my-skill
spec_expect_rc "validate (text): invalid + valid" 1
spec_expect_grep "validate (text): the invalid one" "$T/err" \
	"error: Skill name 'My-Skill' must be lowercase"

# --- "--" ends the options: a folder named -skill
spec_run "$W/name-leading-hyphen" validate --format reference -- -skill
spec_no_crash "validate -- -skill" &&
	spec_diff "$SPEC_EXP/name-leading-hyphen.validate" "validate --format reference -- -skill"
spec_run "$W/name-leading-hyphen" read-properties -- -skill
spec_no_crash "read-properties -- -skill" &&
	spec_diff "$SPEC_EXP/name-leading-hyphen.props" "read-properties -- -skill"

# --- absolute paths are printed as given
spec_run / validate --format reference "$W/valid-basic/my-skill"
spec_no_crash "validate: absolute path" && {
	printf 'exit 0\n--- stdout\nValid skill: %s/valid-basic/my-skill\n--- stderr\n' "$W" >"$T/expected"
	spec_diff "$T/expected" "validate --format reference: absolute path"
}
spec_run / validate --format reference "$W/name-upper/My-Skill/SKILL.md"
spec_no_crash "validate: absolute SKILL.md path" && {
	printf 'exit 1\n--- stdout\n--- stderr\nValidation failed for %s/name-upper/My-Skill:\n  - Skill name '"'"'My-Skill'"'"' must be lowercase\n' "$W" >"$T/expected"
	spec_diff "$T/expected" "validate --format reference: absolute SKILL.md path"
}
spec_run / read-properties "$W/loc-missing/no-skill-md"
spec_no_crash "read-properties: absolute path" && {
	printf 'exit 1\n--- stdout\n--- stderr\nskit read-properties: SKILL.md not found in %s/loc-missing/no-skill-md\n' "$W" >"$T/expected"
	spec_diff "$T/expected" "read-properties: absolute path in the message"
}

spec_done
