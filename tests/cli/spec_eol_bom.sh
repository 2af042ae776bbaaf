#!/bin/sh
# spec_eol_bom.sh - a UTF-8 byte-order mark is skipped (SPEC-RULES.md
# deliberate difference 1; HOSTILE.md C8 "a BOM + CRLF variant of every
# valid case"): every exact case with BOM + CRLF gives the output of the
# plain case, for validate, read-properties and to-prompt.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_eol_run bom-crlf

# A BOM with LF endings is skipped too; a second BOM is content, so the
# file no longer starts with "---".
rm -rf "$W/bom"
mkdir -p "$W/bom/my-skill"
printf -- '\357\273\277---\nname: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test\n---\n' \
	>"$W/bom/my-skill/SKILL.md"
spec_run "$W/bom" validate --format reference my-skill
spec_diff "$SPEC_EXP/valid-basic.validate" "BOM + LF: valid"
printf -- '\357\273\277\357\273\277---\nname: my-skill\ndescription: x\n---\n' \
	>"$W/bom/my-skill/SKILL.md"
spec_run "$W/bom" validate --format reference my-skill
spec_no_crash "two BOMs" && {
	printf 'exit 1\n--- stdout\n--- stderr\nValidation failed for my-skill:\n  - SKILL.md must start with YAML frontmatter (---)\n' >"$T/expected"
	spec_diff "$T/expected" "two BOMs: the second is not skipped"
}
spec_done
