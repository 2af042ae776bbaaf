#!/bin/sh
# agent_protect.sh - protected paths: write_file never writes the audit
# trail, the project config, .git or a skill root, whatever --allow says
# (the exploits: an events.jsonl replaced by one fabricated line, and a
# .agents/skit.json replaced to drop the project's deny rules).
. "$(dirname "$0")/agent_lib.inc"
agent_world
P=$W/proj
mkdir -p "$P/.git/hooks" "$P/.agents/skills" "$P/.claude/skills" "$P/notes"
printf '{"permissions": {"deny": ["Bash(curl:*)"]}}\n' >"$P/.agents/skit.json"
cd "$P" || exit 1

# prun CASSETTE ARGS...: skit run in the project, trail in .agents/runs
prun() {
	c=$1
	shift
	timeout 60 "$SKIT" run --root "project=$W/skills" --quiet \
		--request-log "$T/req.jsonl" --model "replay:$c" "$@" go \
		</dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

# A first run, to have a trail to attack.
printf '{"text": "FIRST"}\n' >"$T/first.jsonl"
prun "$T/first.jsonl" --allow 'Write(**)'
expect_rc 0 "a first run"
set -- "$P"/.agents/runs/*/
first=${1%/}
id=${first##*/}
[ -f "$first/events.jsonl" ] && reg_pass || reg_fail "no first trail"
cp "$first/events.jsonl" "$T/first-events"

w() { # w ID PATH CONTENT: one write_file call
	printf '{"id": "%s", "name": "write_file", "arguments": {"path": "%s", "content": "%s"}}' "$1" "$2" "$3"
}
{
	printf '{"tool_calls": [%s, %s, %s]}\n' \
		"$(w a1 ".agents/runs/$id/events.jsonl" 'FAKE')" \
		"$(w a2 .agents/skit.json '{}')" \
		"$(w a3 .agents/runs/.gitignore '')"
	printf '{"tool_calls": [%s, %s, %s, %s]}\n' \
		"$(w a4 .git/hooks/pre-commit 'EVIL')" \
		"$(w a5 .git/config 'EVIL')" \
		"$(w a6 .agents/skills/evil/SKILL.md 'EVIL')" \
		"$(w a7 .claude/skills/x/SKILL.md 'EVIL')"
	printf '{"tool_calls": [%s, %s, %s, %s]}\n' \
		"$(w a8 ./.agents//skit.json 'EVIL')" \
		"$(w a9 notes/../.git/HEAD 'EVIL')" \
		"$(w b1 sub/.git/hooks/post-checkout 'EVIL')" \
		"$(w b2 notes/ok.txt 'FINE')"
	printf '{"text": "DONE"}\n'
} >"$T/attack.jsonl"
prun "$T/attack.jsonl" --allow 'Write(**)'
expect_rc 0 "the attacking run ends normally"
cmp -s "$first/events.jsonl" "$T/first-events" && reg_pass ||
	reg_fail "the first run's events.jsonl was changed"
lacks "$first/events.jsonl" "FAKE" "no fabricated line in the trail"
has "$P/.agents/skit.json" 'Bash(curl:*)' "the project config keeps its deny rules"
[ ! -e "$P/.agents/runs/.gitignore" ] || grep -qx '\*' "$P/.agents/runs/.gitignore" &&
	reg_pass || reg_fail "the trail's .gitignore was written by the model"
[ ! -e "$P/.git/hooks/pre-commit" ] && reg_pass || reg_fail ".git/hooks written"
[ ! -e "$P/.git/config" ] && reg_pass || reg_fail ".git/config written"
[ ! -e "$P/.git/HEAD" ] && reg_pass || reg_fail ".git reached through notes/.."
[ ! -e "$P/sub/.git" ] && reg_pass || reg_fail "a nested .git was created"
[ ! -e "$P/.agents/skills/evil" ] && reg_pass || reg_fail "a skill root was written"
[ ! -e "$P/.claude/skills/x" ] && reg_pass || reg_fail ".claude/skills written"
has "$P/notes/ok.txt" "FINE" "an ordinary write still works"
has "$T/req.jsonl" ".agents/runs/$id/events.jsonl: protected path" \
	"the model is told the trail is protected"
has "$T/req.jsonl" ".agents/skit.json: protected path" \
	"the model is told the config is protected"
# skit kept its own trail: one JSON object a line, ending with run_end.
set -- "$P"/.agents/runs/*/
[ $# -eq 2 ] && reg_pass || reg_fail "expected two runs, found $#"
for r in "$@"; do
	[ "${r%/}" = "$first" ] && continue
	jsonl_ok "${r}events.jsonl" "the attacked run's trail"
	has "${r}events.jsonl" '"type":"file_write_refused"' "refusals are audited"
	tail -n 1 "${r}events.jsonl" | grep -q '"type":"run_end"' && reg_pass ||
		reg_fail "the attacked run's trail does not end with run_end"
done

# A link planted in the project does not lead into a protected folder,
# and a second spelling of the same folder (a bind mount would do the
# same) is caught by identity.
ln -s .git "$P/gitlink"
{
	printf '{"tool_calls": [%s]}\n' "$(w c1 gitlink/hooks/pre-push 'EVIL')"
	printf '{"text": "DONE"}\n'
} >"$T/link.jsonl"
prun "$T/link.jsonl" --allow 'Write(**)'
[ ! -e "$P/.git/hooks/pre-push" ] && reg_pass || reg_fail "write through a link"

# The user config (trusted folders, saved approvals) is protected, even
# where it lies inside the project (a dotfiles repository as the
# project): not write_file, not a shell call, not a rename over it.
# (A linked config's target: tests/unit/test_protect.c.)
mkdir -p "$P/dot/skit"
printf '{"keep": 1}\n' >"$P/dot/skit/config.json"
{
	printf '{"tool_calls": [%s, %s]}\n' \
		"$(w f1 dot/skit/config.json '{\"trusted\": [\"/\"]}')" \
		"$(w f2 dot/skit/other.json '{}')"
	printf '{"tool_calls": [{"id": "f3", "name": "shell", "arguments": {"command": "%s"}}]}\n' \
		"echo x >> dot/skit/config.json && echo CFG-''WRITTEN || echo CFG-''KEPT; echo y > dot/new.json && mv -f dot/new.json dot/skit/config.json && echo CFG-''RENAMED || echo CFG-''NOT-RENAMED"
	printf '{"text": "DONE"}\n'
} >"$T/cfg.jsonl"
xdg=$XDG_CONFIG_HOME
XDG_CONFIG_HOME=$P/dot
prun "$T/cfg.jsonl" --allow 'Write(**)' --yes
XDG_CONFIG_HOME=$xdg
expect_rc 0 "a run that attacks the user config"
[ "$(cat "$P/dot/skit/config.json")" = '{"keep": 1}' ] && reg_pass ||
	reg_fail "the user config was changed: $(cat "$P/dot/skit/config.json")"
[ ! -e "$P/dot/skit/other.json" ] && reg_pass || reg_fail "a file was added to the user config folder"
has "$T/req.jsonl" "dot/skit/config.json: protected path" "write_file is refused"
has "$T/req.jsonl" "CFG-KEPT" "a shell call cannot append to it"
has "$T/req.jsonl" "CFG-NOT-RENAMED" "nor rename a file over it"
lacks "$T/req.jsonl" "CFG-WRITTEN" "no write went through"
rm -rf "$P/dot"

# --sandbox read-only: write_file writes nothing at all.
{
	printf '{"tool_calls": [%s]}\n' "$(w d1 notes/ro.txt 'RO')"
	printf '{"text": "DONE"}\n'
} >"$T/ro.jsonl"
prun "$T/ro.jsonl" --allow 'Write(**)' --sandbox read-only
expect_rc 0 "a read-only run"
[ ! -e "$P/notes/ro.txt" ] && reg_pass || reg_fail "write_file wrote in a read-only sandbox"
has "$T/req.jsonl" "the sandbox is read-only" "the model is told why"

# --sandbox full-access (the user's own flag): protected paths too.
{
	printf '{"tool_calls": [%s]}\n' "$(w e1 .git/hooks/post-merge 'FULL')"
	printf '{"text": "DONE"}\n'
} >"$T/full.jsonl"
prun "$T/full.jsonl" --allow 'Write(**)' --sandbox full-access
expect_rc 0 "a full-access run"
has "$P/.git/hooks/post-merge" "FULL" "full-access: write_file may write .git"

# What the sandbox cannot protect, because it does not exist yet, is told
# (issue 28): a shell call that plants a nested repository and a nested
# skill root gets a warning for each after the task, and trail events.
printf '%s\n' '{"tool_calls": [{"id": "p1", "name": "shell", "arguments": {"command": "mkdir -p docs/.git/hooks src/.agents/skills/helper notes/plain && echo PLANTED"}}]}' \
	'{"text": "DONE"}' >"$T/plant.jsonl"
prun "$T/plant.jsonl" --yes
expect_rc 0 "a run whose shell call plants"
has "$T/req.jsonl" "PLANTED" "the call ran"
has "$T/err" "skit run: warning: a program of this task created or changed docs/.git in the project: git runs a repository's hooks and config there; look at it before you use git in that folder" \
	"the nested repository is told"
has "$T/err" "skit run: warning: a program of this task created or changed src/.agents in the project: skit loads the skills and config it holds there" \
	"the nested skill root is told"
lacks "$T/err" "notes/plain" "a plain folder is not"
lacks "$T/err" "changed .agents " "nor the project's own .agents (its trail)"
cat "$P"/.agents/runs/*/events.jsonl >"$T/all-events"
has "$T/all-events" '"type":"planted","path":"docs/.git"' "the trail records it"
# A task with no program run does not look.
printf '{"text": "QUIET"}\n' >"$T/quiet.jsonl"
prun "$T/quiet.jsonl"
lacks "$T/err" "warning" "no program, no warning"
rm -rf "$P/docs" "$P/src"

reg_done
