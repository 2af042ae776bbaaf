#!/bin/sh
# agent_project.sh - which folder is the project: never the home folder,
# `/` or a system folder. Started there, skit run refuses in one line
# naming --project DIR, so the model's read_file of .ssh/id_ed25519 or
# etc/shadow never runs; --project DIR names the project instead.
. "$(dirname "$0")/agent_lib.inc"
agent_world
mkdir -p "$HOME/.ssh" "$HOME/.agents/skills" "$HOME/.git"
printf 'PRIVATE-KEY-MARKER\n' >"$HOME/.ssh/id_ed25519"

# hrun CASSETTE ARGS...: skit run here, with the read approved by --yes
hrun() {
	c=$1
	shift
	rm -f "$T/req.jsonl"
	timeout 60 "$SKIT" run --yes --quiet --no-audit --request-log \
		"$T/req.jsonl" --model "replay:$c" "$@" go \
		</dev/null >"$T/out" 2>"$T/err"
	rc=$?
}
printf '%s\n' '{"tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": ".ssh/id_ed25519"}}]}' \
	'{"text": "DONE"}' >"$T/key.jsonl"
printf '%s\n' '{"tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": "etc/shadow"}}, {"id": "r2", "name": "read_file", "arguments": {"path": "etc/hostname"}}]}' \
	'{"text": "DONE"}' >"$T/shadow.jsonl"

# Started in the home folder (which holds .agents/ and a dotfiles .git).
cd "$HOME" || exit 1
hrun "$T/key.jsonl"
expect_rc 2 "run in the home folder is a usage error"
has "$T/err" "skit run: no project: $HOME is the home folder; run it in a project, or name one with --project DIR" \
	"the refusal names --project DIR"
lines "$T/err" 1 "in one line"
[ ! -e "$T/req.jsonl" ] || lacks "$T/req.jsonl" "PRIVATE-KEY-MARKER" \
	"the key never reaches the model"
hrun "$T/key.jsonl" --root "$W/skills"
expect_rc 2 "with --root too"
# skit chat refuses the same way.
timeout 60 "$SKIT" chat --quiet --no-audit --model "replay:$T/key.jsonl" \
	</dev/null >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "chat in the home folder"
has "$T/err" "skit chat: no project: $HOME is the home folder" "chat says why"

# A folder under the home folder with no marker is its own project: the
# key above it stays out of reach.
mkdir -p "$HOME/notes"
cd "$HOME/notes" || exit 1
printf '%s\n' '{"tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": "../.ssh/id_ed25519"}}]}' \
	'{"text": "DONE"}' >"$T/up.jsonl"
hrun "$T/up.jsonl"
expect_rc 0 "a plain folder under home is a project"
lacks "$T/req.jsonl" "PRIVATE-KEY-MARKER" "the key stays out of reach"

# A hidden folder of the home folder, or one beneath it, with no marker
# of its own, is no project: started in ~/.ssh, read_file id_ed25519
# never runs.
printf '%s\n' '{"tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": "id_ed25519"}}]}' \
	'{"text": "DONE"}' >"$T/here.jsonl"
cd "$HOME/.ssh" || exit 1
hrun "$T/here.jsonl"
expect_rc 2 "run in ~/.ssh is a usage error"
has "$T/err" "skit run: no project: $HOME/.ssh is a hidden folder of the home folder" \
	"the refusal names the hidden folder"
lines "$T/err" 1 "in one line"
[ ! -e "$T/req.jsonl" ] || lacks "$T/req.jsonl" "PRIVATE-KEY-MARKER" \
	"the key in ~/.ssh never reaches the model"
mkdir -p "$HOME/.config/tool/sub"
cd "$HOME/.config/tool/sub" || exit 1
hrun "$T/here.jsonl"
expect_rc 2 "beneath a hidden folder of home too"
# With a marker of its own (a dotfiles repository), it is a project.
mkdir -p "$HOME/.config/nvim/.git"
cd "$HOME/.config/nvim" || exit 1
hrun "$T/here.jsonl"
expect_rc 0 "a hidden folder holding .git is a project"

# Started in /: refused; and a system folder too.
cd / || exit 1
hrun "$T/shadow.jsonl"
expect_rc 2 "run in / is a usage error"
has "$T/err" "no project: / is the root folder; run it in a project, or name one with --project DIR" \
	"the refusal names the root folder"
[ ! -e "$T/req.jsonl" ] || lacks "$T/req.jsonl" "root:" "etc/shadow never read"
cd /etc || exit 1
hrun "$T/shadow.jsonl"
expect_rc 2 "run in /etc is a usage error"
has "$T/err" "no project: /etc is a system folder" "a system folder is named so"

# --project DIR names the project, wherever the run starts.
mkdir -p "$W/proj/data"
printf 'PROJECT-FILE-MARKER\n' >"$W/proj/data/f.txt"
printf '%s\n' '{"tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": "data/f.txt"}}, {"id": "r2", "name": "read_file", "arguments": {"path": "../home/.ssh/id_ed25519"}}]}' \
	'{"text": "DONE"}' >"$T/proj.jsonl"
cd "$HOME" || exit 1
hrun "$T/proj.jsonl" --project "$W/proj"
expect_rc 0 "--project DIR from the home folder"
has "$T/req.jsonl" "PROJECT-FILE-MARKER" "the file tools work in DIR"
lacks "$T/req.jsonl" "PRIVATE-KEY-MARKER" "and stay in it"
cd / || exit 1
hrun "$T/proj.jsonl" --project "$W/proj"
expect_rc 0 "--project DIR from /"
has "$T/req.jsonl" "PROJECT-FILE-MARKER" "from / too"
hrun "$T/proj.jsonl" --project "$W/nope"
expect_rc 2 "--project of a missing folder"
has "$T/err" "skit run: --project $W/nope: not a folder" "says so"

# The audit trail goes to <project>/.agents/runs of --project DIR.
cd "$HOME" || exit 1
rm -f "$T/req.jsonl"
timeout 60 "$SKIT" run --yes --quiet --model "replay:$T/proj.jsonl" \
	--project "$W/proj" go </dev/null >"$T/out" 2>"$T/err"
set -- "$W"/proj/.agents/runs/*/events.jsonl
[ -f "$1" ] && reg_pass || reg_fail "no trail in the --project folder"
[ ! -d "$HOME/.agents/runs" ] && reg_pass || reg_fail "a trail in the home folder"

# A project marked by .claude/ only is found from below.
mkdir -p "$W/cl/.claude" "$W/cl/src"
cd "$W/cl/src" || exit 1
run run --yes --quiet --model "replay:$T/proj.jsonl" go
set -- "$W"/cl/.agents/runs/*/events.jsonl
[ -f "$1" ] && reg_pass || reg_fail ".claude/ does not mark a project"
reg_done
