#!/bin/sh
# newcomer_yaml.sh - one wording for a YAML problem, whichever command
# reports it (issue 35, point 8), on a user's path: a project made with
# `git init`, HOME a scratch folder, no --root, no terminal.
#
# validate's error and the loader's warning (doctor; list counts it) give
# the YAML reader's message, then the same hint; a flow sequence is
# called a sequence, and "ugly" is never printed; validate --format
# reference, read-properties and to-prompt --strict keep strictyaml's
# exact words.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
P=$W/proj
mkdir -p "$P" && cd "$P" && git init -q . || exit 1
R=.agents/skills
mkdir -p "$R/flowseq" "$R/colon"
printf -- '---\nname: flowseq\ndescription: Lists things. Use it.\nallowed-tools: [Read, Bash]\n---\nBody.\n' \
	>"$R/flowseq/SKILL.md"
printf -- '---\nname: colon\ndescription: Does this: and that. Use it.\n---\nBody.\n' \
	>"$R/colon/SKILL.md"
STRICTYAML="Invalid YAML in frontmatter: Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)"
FLOW="Found disallowed flow sequence [...] (surround with ' and ' to make text appear literally); hint: write one '- item' a line"
COLON="mapping values are not allowed in this context"
HINT="hint: the description holds ': ' without quotes: put it in quotes or write it as a block (description: >-)"

# --- validate (text and JSON): our wording, with the hint
run validate "$R/flowseq" </dev/null
expect_rc 1 "validate a flow sequence"
has "$T/err" "error: Invalid YAML in frontmatter: $FLOW" "validate: the flow sequence named"
lacks "$T/err" "ugly" "validate never prints 'ugly'"
run validate --json "$R/flowseq" </dev/null
has "$T/out" "Found disallowed flow sequence" "validate --json: the same words"
lacks "$T/out" "ugly" "validate --json never prints 'ugly'"
run validate "$R/colon" </dev/null
expect_rc 1 "validate an unquoted ': '"
has "$T/err" "Invalid YAML in frontmatter: $COLON; $HINT" "validate: the ': ' hint"

# --- doctor and list: the same words, as warnings
"$SKIT" trust >/dev/null 2>&1 </dev/null
run doctor </dev/null
has "$T/out" "Field 'allowed-tools': $FLOW" "doctor: the same flow wording"
has "$T/out" "Field 'description': $COLON, which the reference rejects (read as one string); $HINT" \
	"doctor: the same ': ' wording"
lacks "$T/out" "ugly" "doctor never prints 'ugly'"
run list </dev/null
has "$T/err" "2 loaded with warnings: skit doctor explains" "list counts them"

# --- install: a copy of the skill loads with the same warning
mkdir -p "$W/src"
cp -R "$R/colon" "$W/src/colon"
run install --scope user "$W/src/colon" </dev/null
expect_rc 0 "install a skill with an unquoted ': '"
run doctor </dev/null
n=$(grep -c "Field 'description': $COLON" "$T/out")
[ "$n" = 2 ] && reg_pass || reg_fail "doctor: $n copies with the ': ' wording, expected 2"

# --- the reference's outputs: strictyaml's words, no hint
run validate --format reference "$R/flowseq" </dev/null
expect_rc 1 "validate --format reference"
has "$T/err" "  - $STRICTYAML" "reference format: strictyaml's exact words"
lines "$T/err" 2 "reference format: two lines"
lacks "$T/err" "hint" "reference format: no hint"
run read-properties "$R/flowseq" </dev/null
if [ "$(cat "$T/err")" = "skit read-properties: $STRICTYAML" ]; then
	reg_pass
else
	reg_fail "read-properties: $(cat "$T/err")"
fi
run to-prompt --strict "$R/colon" </dev/null
if [ "$(cat "$T/err")" = "skit to-prompt: Invalid YAML in frontmatter: $COLON" ]; then
	reg_pass
else
	reg_fail "to-prompt --strict: $(cat "$T/err")"
fi
reg_done
