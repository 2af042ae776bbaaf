#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_disallowed.sh - a skill's disallowed-tools (Claude Code's field:
# the tools a skill forbids while it is active): before the skill is
# active the shell runs anything; once it is, a command its patterns
# cover is denied even under --yes, with the skill named, and a tool it
# names bare is no longer offered; the list form and the string form both
# load; validate --lenient reports unknown names and malformed patterns.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1

# tools N: the names of the tools offered in request N of $T/req.jsonl
tools() {
	sed -n "${1}p" "$T/req.jsonl" | python3 -c '
import json, sys
print(" ".join(t["name"] for t in json.load(sys.stdin)["tools"]))'
}

d=$W/skills/careful
mkdir -p "$d" "$W/skills/noshell"
printf -- '---\nname: careful\ndescription: Removes nothing.\ndisallowed-tools:\n  - Bash(rm:*)\n  - WebFetch\n---\nCAREFUL-BODY\n' \
	>"$d/SKILL.md"
printf -- '---\nname: noshell\ndescription: No shell.\ndisallowed-tools: Bash\n---\nNOSHELL-BODY\n' \
	>"$W/skills/noshell/SKILL.md"
: >"$W/work/victim"
cat >"$W/c.jsonl" <<'JSONL'
{"tool_calls": [{"id": "s0", "name": "shell", "arguments": {"command": "echo BEFORE-RAN"}}]}
{"tool_calls": [{"id": "u1", "name": "use_skill", "arguments": {"name": "careful"}}]}
{"tool_calls": [{"id": "s1", "name": "shell", "arguments": {"command": "rm -f victim"}}]}
{"tool_calls": [{"id": "s2", "name": "shell", "arguments": {"command": "echo AFTER-RAN"}}]}
{"tool_calls": [{"id": "u2", "name": "use_skill", "arguments": {"name": "noshell"}}]}
{"tool_calls": [{"id": "s3", "name": "shell", "arguments": {"command": "echo LAST-RAN"}}]}
{"text": "FINAL-ANSWER"}
JSONL

rm -f "$T/req.jsonl"
agent --request-log "$T/req.jsonl" --model "replay:$W/c.jsonl" go
expect_rc 0 "denied calls end the run normally"
has "$T/req.jsonl" "BEFORE-RAN" "before the skill is active the shell runs"
has "$T/req.jsonl" "denied by the disallowed-tools of skill 'careful' ('Bash(rm:*)')" \
	"a covered command is denied, with the skill named, under --yes"
[ -e "$W/work/victim" ] && reg_pass || reg_fail "the denied rm did not run"
has "$T/req.jsonl" "AFTER-RAN" "a command the patterns do not cover runs"
case " $(tools 3) " in *" shell "*) reg_pass ;; *) reg_fail "shell offered with careful: $(tools 3)" ;; esac
case " $(tools 6) " in
*" shell "*) reg_fail "shell still offered with noshell: $(tools 6)" ;;
*" read_file "*) reg_pass ;;
*) reg_fail "the other tools gone too: $(tools 6)" ;;
esac
has "$T/req.jsonl" "tool 'shell' is not available now" \
	"a tool named bare is not available while the skill is active"
lacks "$T/req.jsonl" "LAST-RAN\\\\n" "so its call did not run"

# the string form, and lints (the loading rules: the spec's reference
# knows no disallowed-tools, and plain validate says so)
printf -- '---\nname: careful\ndescription: Reads only.\ndisallowed-tools: Bash(rm:*) Frobnicate\n---\nB\n' \
	>"$d/SKILL.md"
run validate --lenient "$d"
expect_rc 0 "disallowed-tools warnings do not fail validate --lenient"
has "$T/err" "Unknown tool 'Frobnicate' in disallowed-tools [disallowed-tools-unknown-tool]" \
	"an unknown name is a lint warning"
printf -- '---\nname: careful\ndescription: Reads only.\ndisallowed-tools: Read(a\n---\nB\n' \
	>"$d/SKILL.md"
run validate --lenient --strict "$d"
expect_rc 1 "a malformed disallowed-tools fails --strict"
has "$T/err" "[disallowed-tools-pattern]" "a malformed pattern is a lint warning"
reg_done
