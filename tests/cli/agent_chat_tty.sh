#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_chat_tty.sh - `skit chat` on a pseudo-terminal: Ctrl-C at the
# prompt clears the line and the session goes on; Tab completes /commands
# and /skill names; /skills prints aligned columns; Ctrl-D ends the
# session cleanly (exit 0, run recorded "ok", the audit line on a line of
# its own).
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1
if ! python3 -c 'import pty' 2>/dev/null; then
	reg_fail "python3 with pty is needed for this test"
	reg_done
fi
# A long name, so alignment is visible.
mkdir -p "$W/skills/a-much-longer-skill-name"
printf -- '---\nname: a-much-longer-skill-name\ndescription: LONG-DESC.\n---\nbody\n' \
	>"$W/skills/a-much-longer-skill-name/SKILL.md"

# hello<Ctrl-C>, then a message, then "/sk<Tab>" + Enter, "/alp<Tab>" and
# Ctrl-U (so the completed name is seen but not sent), then Ctrl-D.
printf '%s\n' 'hello\x03' 'hello from the user\r' '/sk\t\r' '/alp\t' '\x15' '\x04' |
	NO_COLOR=1 HOME="$W" XDG_STATE_HOME="$W/state" timeout 60 python3 \
	"$SKIT_SOURCE_DIR/tests/support/ptydrive.py" "$T/screen" -- \
	"$SKIT" chat --yes --project "$W" --root "project=$W/skills" --runs-dir "$W/runs" \
	--model "replay:$CASS/final.jsonl"
rc=$?
expect_rc 0 "chat on a terminal"
# The screen without carriage returns and cursor-movement sequences.
esc=$(printf '\033')
tr -d '\r\007' <"$T/screen" | sed "s/${esc}\[[0-9;]*[A-Za-z]//g" >"$T/s"
has "$T/s" "^C" "Ctrl-C shown at the prompt"
has "$T/s" "FINAL-ANSWER" "the session went on after Ctrl-C"
has "$T/s" "/alpha" "Tab completed a skill name"
# /sk<Tab> completed to /skills, which listed the skills.
has "$T/s" "LONG-DESC." "Tab completed /skills"
# Aligned: the descriptions start in the same column.
c1=$(grep 'The alpha skill' "$T/s" | head -n 1 | sed 's/The alpha skill.*//' | wc -c)
c2=$(grep 'LONG-DESC' "$T/s" | head -n 1 | sed 's/LONG-DESC.*//' | wc -c)
if [ "$c1" -gt 1 ] && [ "$c1" -eq "$c2" ]; then
	reg_pass
else
	reg_fail "/skills columns not aligned ($c1 vs $c2)"
fi
if grep -q 'skit> .*\[audit\]' "$T/s"; then
	reg_fail "the audit line was printed on the prompt line"
else
	reg_pass
fi
the_run
if [ "$(json_get "$RUN/run.json" '["status"]')" = ok ]; then
	reg_pass
else
	reg_fail "run.json status after Ctrl-D: $(json_get "$RUN/run.json" '["status"]')"
fi
reg_done
