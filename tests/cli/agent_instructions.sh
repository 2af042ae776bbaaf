#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_instructions.sh - the project's instructions (docs/agent.md,
# "Project instructions") as a user meets them: no --root, no --runs-dir,
# relative paths, HOME a scratch folder. AGENTS.md from the project's root
# down to the working folder (CLAUDE.md where a folder has none), then
# ~/.agents/AGENTS.md, in the system prompt after the base prompt and
# before the index; an untrusted project's files are not read (a trace
# note says so) and neither are a nested project's; links are not
# followed; a big file is cut with a note; the digests are in the trail;
# --no-project-instructions and "project_instructions": false turn them
# off (a project's config may turn them off, never on); doctor lists them;
# chat has them too.
. "$(dirname "$0")/agent_lib.inc"
reg_setup
P=$W/proj
mkdir -p "$P/.git" "$P/sub/deep" "$HOME/.agents"
skill "$P/.agents/skills" projskill "PROJ-SKILL-DESC for project tasks."
printf 'ROOT-AGENTS-MARK\n' >"$P/AGENTS.md"
printf 'ROOT-CLAUDE-UNUSED\n' >"$P/CLAUDE.md"
printf 'SUB-CLAUDE-MARK\n' >"$P/sub/CLAUDE.md"
printf 'DEEP-AGENTS-MARK\n' >"$P/sub/deep/AGENTS.md"
printf 'USER-AGENTS-MARK\n' >"$HOME/.agents/AGENTS.md"
cd "$P/sub/deep" || exit 1
REQ=../../../req.jsonl # $W/req.jsonl, spelled as a user would
FINAL=$CASS/final.jsonl

# go ARGS...: `skit run` here with the user's defaults and the trace on,
# the request log at $REQ (fresh); $RUN is the run's folder (the only
# one: two runs in one second do not sort by time).
go() {
	rm -rf "$W/req.jsonl" "$P/.agents/runs"
	run run --trace --model "replay:$FINAL" --request-log "$REQ" "$@" \
		go </dev/null
	RUN=$(ls -d "$P"/.agents/runs/*/ 2>/dev/null)
	RUN=${RUN%/}
	python3 -c 'import json,sys
print(json.loads(open(sys.argv[1]).readline())["system"])' "$W/req.jsonl" \
		>"$T/system" 2>/dev/null || : >"$T/system"
}

# order FILE TEXT...: each TEXT is in FILE, after the one before it.
order() {
	f=$1
	shift
	if python3 - "$f" "$@" <<'PY'; then
import sys
s = open(sys.argv[1]).read()
at = -1
for t in sys.argv[2:]:
    i = s.find(t, at + 1)
    if i < 0 or i <= at:
        print("  %r missing or out of order" % t)
        sys.exit(1)
    at = i
PY
		reg_pass
	else
		reg_fail "order in $(basename "$f"): $*"
	fi
}

# switch VALUE: "project_instructions" in the user config (which holds
# the trusted folders too); "none" removes it.
CFG=$XDG_CONFIG_HOME/skit/config.json
switch() {
	python3 - "$CFG" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
if sys.argv[2] == "none":
    c.pop("project_instructions", None)
else:
    c["project_instructions"] = sys.argv[2] == "true"
json.dump(c, open(sys.argv[1], "w"))
PY
}

# event KEY: the project_instructions event's files as "label:key" lines
event() {
	python3 - "$RUN/events.jsonl" "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["type"] == "project_instructions":
        for f in e["files"]:
            print("%s:%s" % (f["label"], f.get(sys.argv[2])))
PY
}

# 1. Not trusted: the project's files stay out, the user's own is read.
go
expect_rc 0 "run in an untrusted project"
lacks "$T/system" "ROOT-AGENTS-MARK" "untrusted: the root's AGENTS.md is not read"
lacks "$T/system" "SUB-CLAUDE-MARK" "untrusted: nor a folder's CLAUDE.md"
lacks "$T/system" "DEEP-AGENTS-MARK" "untrusted: nor the working folder's"
has "$T/system" "USER-AGENTS-MARK" "the user's own file is read"
has "$T/err" "project instructions: AGENTS.md not read: not a trusted folder (to trust it: skit trust $P)" \
	"a trace note says why"
event skipped >"$T/ev"
has "$T/ev" "AGENTS.md:not a trusted folder" "the trail says it was skipped"
has "$T/ev" "~/.agents/AGENTS.md:None" "the trail lists the user's file"

# 2. Trusted: root down to here, then the user's, between base and index.
run trust "$P"
expect_rc 0 "skit trust"
go
expect_rc 0 "run in a trusted project"
has "$T/out" "FINAL-ANSWER" "the answer"
order "$T/system" "You are skit" "<project_instructions>" \
	'<instructions file="AGENTS.md">' ROOT-AGENTS-MARK \
	'<instructions file="sub/CLAUDE.md">' SUB-CLAUDE-MARK \
	'<instructions file="sub/deep/AGENTS.md">' DEEP-AGENTS-MARK \
	'<instructions file="~/.agents/AGENTS.md">' USER-AGENTS-MARK \
	"</project_instructions>" "PROJ-SKILL-DESC"
has "$T/system" "the later one wins" "the framing says what wins"
lacks "$T/system" "ROOT-CLAUDE-UNUSED" "CLAUDE.md only where there is no AGENTS.md"
has "$T/err" "project instructions: sub/deep/AGENTS.md (17 bytes)" "the trace lists each file"
# The digests, in the trail after run_start and before the first input.
event sha256 >"$T/ev"
for f in AGENTS.md sub/CLAUDE.md sub/deep/AGENTS.md; do
	has "$T/ev" "$f:$(sha256sum "$P/$f" | cut -d' ' -f1)" "the digest of $f"
done
has "$T/ev" "~/.agents/AGENTS.md:$(sha256sum "$HOME/.agents/AGENTS.md" | cut -d' ' -f1)" \
	"the digest of the user's file"
grep -o '"type":"[a-z_]*"' "$RUN/events.jsonl" >"$T/types"
order "$T/types" '"run_start"' '"project_instructions"' '"user_input"'

# 3. The flag: off for this run.
go --no-project-instructions
expect_rc 0 "run --no-project-instructions"
lacks "$T/system" "<project_instructions>" "the flag: no section"
lacks "$T/system" "USER-AGENTS-MARK" "the flag: not even the user's"
lacks "$RUN/events.jsonl" '"project_instructions"' "the flag: no event"
has "$T/system" "PROJ-SKILL-DESC" "the flag: the index stays"

# 4. The config switch: the user's turns it off; a project's may turn it
# off but not on; --config (the user's own file) may.
switch false
printf '{"project_instructions": true}\n' >"$P/.agents/skit.json"
go
expect_rc 0 "run with the switch off"
lacks "$T/system" "ROOT-AGENTS-MARK" "user config off: not read"
lacks "$T/system" "USER-AGENTS-MARK" "user config off: none at all"
printf '{"project_instructions": true}\n' >"$W/on.json"
go --config "$W/on.json"
has "$T/system" "ROOT-AGENTS-MARK" "--config turns them on again"
switch none
printf '{"project_instructions": false}\n' >"$P/.agents/skit.json"
go
lacks "$T/system" "ROOT-AGENTS-MARK" "a trusted project's config turns them off"
printf '{"project_instructions": 1}\n' >"$P/.agents/skit.json"
go
expect_rc 1 "a switch that is not a boolean"
has "$T/err" "project_instructions: expected true or false" "the error names the key"
rm -f "$P/.agents/skit.json"

# 5. skit chat has them too, and its flag.
printf 'hello\n' | timeout 60 "$SKIT" chat --model "replay:$FINAL" \
	--request-log "$REQ" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "chat"
has "$W/req.jsonl" "DEEP-AGENTS-MARK" "chat: the instructions are sent"
rm -f "$W/req.jsonl"
printf 'hello\n' | timeout 60 "$SKIT" chat --no-project-instructions \
	--model "replay:$FINAL" --request-log "$REQ" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "chat --no-project-instructions"
lacks "$W/req.jsonl" "DEEP-AGENTS-MARK" "chat: the flag leaves them out"

# 6. doctor lists them.
run doctor
has "$T/out" "Project instructions" "doctor has the section"
has "$T/out" "  AGENTS.md  17 bytes" "doctor lists the root's file"
has "$T/out" "  sub/CLAUDE.md  16 bytes" "doctor lists the folder's CLAUDE.md"
has "$T/out" "  ~/.agents/AGENTS.md  17 bytes" "doctor lists the user's file"
lacks "$T/out" "CLAUDE-UNUSED" "doctor lists no file that is not read"
run doctor --json
json_ok "$T/out" "doctor --json is JSON"
[ "$(json_get "$T/out" '["instructions"]["files"][2]["label"]')" = "sub/deep/AGENTS.md" ] &&
	reg_pass || reg_fail "doctor --json: $(json_get "$T/out" '["instructions"]')"
[ "$(json_get "$T/out" '["instructions"]["enabled"]')" = "True" ] &&
	reg_pass || reg_fail "doctor --json: enabled"
switch false
run doctor
has "$T/out" "off: \"project_instructions\": false in $CFG" \
	"doctor says the config turns them off"
switch none

# 7. Caps and links: a big file is cut with a note; a linked AGENTS.md is
# not followed (the folder's CLAUDE.md is read instead).
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "%039d\n", i; print "END-OF-BIG" }' \
	>"$P/AGENTS.md"
printf 'OUTSIDE-SECRET\n' >"$W/secret.md"
rm "$P/sub/deep/AGENTS.md"
ln -s "$W/secret.md" "$P/sub/deep/AGENTS.md"
printf 'DEEP-CLAUDE-MARK\n' >"$P/sub/deep/CLAUDE.md"
go
expect_rc 0 "run with a big file and a link"
has "$T/system" "[cut: the file is 40011 bytes; the first 32768 are shown]" "the cut is noted"
lacks "$T/system" "END-OF-BIG" "the end of the big file is cut"
has "$T/err" "project instructions: AGENTS.md cut to 32768 of 40011 bytes" "the trace says so"
lacks "$T/system" "OUTSIDE-SECRET" "a link is not followed"
has "$T/system" "DEEP-CLAUDE-MARK" "the folder's CLAUDE.md instead"
has "$T/err" "sub/deep/AGENTS.md not read: a symbolic link (not followed)" "the trace says why"
run doctor
has "$T/out" "sub/deep/AGENTS.md  not read: a symbolic link (not followed)" "doctor says why"

# 8. A project nested in the trusted one (a `.agents` folder a program
# could have planted) is a project of its own, and trust does not pass
# into it: from below it, it is the project and its files stay out; with
# --project naming the outer one, the walk stops trusting there.
mkdir -p "$P/sub/.agents"
go
lacks "$T/system" "SUB-CLAUDE-MARK" "nested: its file is not read"
lacks "$T/system" "DEEP-CLAUDE-MARK" "nested: nor below it"
has "$T/err" "project instructions: CLAUDE.md not read: not a trusted folder (to trust it: skit trust $P/sub)" \
	"nested: the note names the folder to trust"
go --project "$P"
has "$T/system" "32768 are shown" "--project: the root's file is read"
lacks "$T/system" "SUB-CLAUDE-MARK" "--project: the nested project's file is not"
lacks "$T/system" "DEEP-CLAUDE-MARK" "--project: nor below it"
has "$T/err" "sub/CLAUDE.md not read: not a trusted folder (to trust it: skit trust $P/sub)" \
	"--project: the note names the nested folder"
reg_done
