#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_trust.sh - folder trust and saved approvals (docs/registry.md,
# "Folder trust"; docs/permissions.md, "Saved approvals"): an untrusted
# project's skills stay out of the agent (one line says how to trust it
# without a terminal; a pseudo-terminal asks, and "yes" records it),
# `list` and `doctor` mark them, `skit trust` writes the user config
# keeping the rest; an "always" for a script survives the run, bound to
# the skill's files: a one-byte change makes skit ask again.
. "$(dirname "$0")/agent_lib.inc"
agent_world
if ! python3 -c 'import pty' 2>/dev/null; then
	reg_fail "python3 with pty is needed for this test"
	reg_done
fi
CFG=$XDG_CONFIG_HOME/skit/config.json
P=$W/proj
mkdir -p "$P/.git" "$P/sub"
skill "$P/.agents/skills" projskill "PROJ-SKILL-DESC for project tasks."
cd "$P" || exit 1

# pty OUT KEYS ARGS...: skit ARGS on a pseudo-terminal, typing KEYS
# (one per line); the screen, without CR and escapes, in $T/OUT.
pty() {
	out=$1 keys=$2
	shift 2
	printf '%s\n' "$keys" | NO_COLOR=1 timeout 60 python3 \
		"$SKIT_SOURCE_DIR/tests/support/ptydrive.py" "$T/$out.raw" -- \
		"$SKIT" "$@"
	rc=$?
	esc=$(printf '\033')
	tr -d '\r\007' <"$T/$out.raw" | sed "s/${esc}\[[0-9;]*[A-Za-z]//g" >"$T/$out"
}

# list and doctor show the project's skills, marked untrusted.
run list
expect_rc 0 "list in an untrusted project"
has "$T/out" "projskill  project:agents  [untrusted] PROJ-SKILL-DESC" "list marks the skill"
has "$T/err" "skit list: the project's skills are untrusted: the agent leaves them out until you run: skit trust $P" \
	"list says how to trust it"
run list --json
json_ok "$T/out" "list --json is JSON"
has "$T/out" '"trusted": false' "list --json says untrusted"
run doctor
has "$T/out" "Project: $P [untrusted]" "doctor marks the project"
grep -q "project:agents .* 1 skill \[untrusted\]" "$T/out" &&
	reg_pass || reg_fail "doctor marks the project root"
run doctor --json
json_ok "$T/out" "doctor --json is JSON"
has "$T/out" '"trusted": false' "doctor --json says untrusted"

# Without a terminal: the project's skills stay off, with one line.
run run --runs-dir "$W/runs" --request-log "$T/req.jsonl" \
	--model "replay:$CASS/final.jsonl" go </dev/null
expect_rc 0 "run in an untrusted project"
has "$T/err" "skit: the skills and config of $P are not loaded (not a trusted folder); to trust it, run: skit trust $P" \
	"one line says how to trust it"
[ "$(grep -c "trust" "$T/err")" -eq 1 ] && reg_pass ||
	reg_fail "more than one line about trust"
lacks "$T/req.jsonl" "PROJ-SKILL-DESC" "the untrusted skill is not in the index"
[ ! -e "$CFG" ] && reg_pass || reg_fail "the config was written without asking"

# A --root given on the command line counts as trusted.
rm -f "$T/req.jsonl"
run run --root "project=$P/.agents/skills" --runs-dir "$W/runs" \
	--request-log "$T/req.jsonl" --model "replay:$CASS/final.jsonl" go </dev/null
lacks "$T/err" "not a trusted folder" "no trust line with --root"
has "$T/req.jsonl" "PROJ-SKILL-DESC" "the --root skill is in the index"

# On a terminal: asked; "n" runs without the project's skills.
mkdir -p "$XDG_CONFIG_HOME/skit"
printf '{\n  "keep": {"me": [1, 2]},\n  "roots": {}\n}\n' >"$CFG"
rm -f "$T/req.jsonl"
pty screen 'n\r' run --runs-dir "$W/runs" --request-log "$T/req.jsonl" \
	--model "replay:$CASS/final.jsonl" go
expect_rc 0 "run on a terminal, trust declined"
has "$T/screen" "is not a trusted folder" "the terminal asks"
has "$T/screen" "Trust this folder? [y]es, [n]o:" "the question"
has "$T/screen" "trust it later with: skit trust $P" "n says how to trust it later"
lacks "$T/req.jsonl" "PROJ-SKILL-DESC" "declined: not in the index"
lacks "$CFG" "trusted" "declined: nothing recorded"

# "y" records the trust (keeping the rest of the config) and loads them.
rm -f "$T/req.jsonl"
pty screen 'y\r' run --runs-dir "$W/runs" --request-log "$T/req.jsonl" \
	--model "replay:$CASS/final.jsonl" go
expect_rc 0 "run on a terminal, trusted"
has "$T/screen" "skit: trusted $P" "y trusts"
has "$T/req.jsonl" "PROJ-SKILL-DESC" "trusted: the skill is in the index"
json_ok "$CFG" "the config stays JSON"
[ "$(json_get "$CFG" '["trusted"]')" = "['$P']" ] && reg_pass ||
	reg_fail "config trusted: $(json_get "$CFG" '["trusted"]')"
[ "$(json_get "$CFG" '["keep"]')" = "{'me': [1, 2]}" ] && reg_pass ||
	reg_fail "the rest of the config was lost"
ls "$XDG_CONFIG_HOME/skit" | grep -q tmp && reg_fail "a temporary file was left" || reg_pass

# Now trusted: no question, no line; a subfolder is covered too.
rm -f "$T/req.jsonl"
cd "$P/sub" || exit 1
run run --runs-dir "$W/runs" --request-log "$T/req.jsonl" \
	--model "replay:$CASS/final.jsonl" go </dev/null
lacks "$T/err" "trust" "a trusted project: no line"
has "$T/req.jsonl" "PROJ-SKILL-DESC" "a trusted project's skill is in the index"
run list
has "$T/out" "projskill  project:agents  PROJ-SKILL-DESC" "list: no mark once trusted"
lacks "$T/err" "untrusted" "list: no line once trusted"
# Issue 28: a skill root planted in a folder of the trusted project (as a
# script of an earlier run could) makes that folder a project of its own,
# and trust does not pass down into it: `cd src && skit list` marks it,
# and the agent leaves it out until the user trusts it by name.
mkdir -p "$P/src"
skill "$P/src/.agents/skills" helper "PLANTED-HELPER-DESC for anything."
cd "$P/src" || exit 1
run list
has "$T/out" "helper  project:agents  [untrusted] PLANTED-HELPER-DESC" \
	"a nested project is not trusted by inheritance"
rm -f "$T/req.jsonl"
run run --runs-dir "$W/runs" --request-log "$T/req.jsonl" \
	--model "replay:$CASS/final.jsonl" go </dev/null
has "$T/err" "skit: the skills and config of $P/src are not loaded (not a trusted folder); to trust it, run: skit trust $P/src" \
	"run says how to trust the nested project"
lacks "$T/req.jsonl" "PLANTED-HELPER-DESC" "the planted skill is not in the index"
rm -rf "$P/src"
cd "$P" || exit 1

# skit trust --list / --remove / DIR.
run trust --list
has "$T/out" "$P" "trust --list"
run trust --list --json
json_ok "$T/out" "trust --list --json is JSON"
run trust --remove "$P"
expect_rc 0 "trust --remove"
run trust --list
lacks "$T/out" "$P" "removed"
run trust --remove "$P"
expect_rc 1 "removing an untrusted folder"
run trust
expect_rc 0 "skit trust: the project"
has "$T/out" "trusted: $P" "skit trust names the project"
run trust "$HOME"
expect_rc 2 "the home folder cannot be trusted"
run trust "$W/nope"
expect_rc 2 "a missing folder"
run trust --help
expect_rc 0 "trust --help"
# a malformed user config is not overwritten
printf '{ "trusted": [' >"$CFG"
run trust "$W/work"
expect_rc 1 "a malformed config refuses the change"
[ "$(cat "$CFG")" = '{ "trusted": [' ] && reg_pass || reg_fail "the malformed config was changed"
run run --runs-dir "$W/runs" --model "replay:$CASS/final.jsonl" go </dev/null
expect_rc 1 "a malformed user config stops the agent"
rm -f "$CFG"

# An untrusted folder's config is not read at all (its roots, its
# permissions); list and doctor say so in one line; once trusted, it is.
Q=$W/q
mkdir -p "$Q/.git" "$Q/.agents"
skill "$Q/extra" extraskill "EXTRA-ROOT-DESC for extra tasks."
printf '{"roots": {"project": ["extra"]}, "permissions": {"deny": ["Bash(echo:*)"]}}\n' \
	>"$Q/.agents/skit.json"
cd "$Q" || exit 1
rm -f "$T/req.jsonl"
run run --runs-dir "$W/runs" --request-log "$T/req.jsonl" \
	--model "replay:$CASS/final.jsonl" go </dev/null
expect_rc 0 "run with an untrusted config naming a root"
lacks "$T/req.jsonl" "EXTRA-ROOT-DESC" "the config's root is not read"
has "$T/err" "skit: the skills and config of $Q are not loaded (not a trusted folder); to trust it, run: skit trust $Q" \
	"one line says how to trust it"
rm -f "$T/req.jsonl"
run run --yes --root "project=$W/skills" --runs-dir "$W/runs" --workdir "$W/work" \
	--request-log "$T/req.jsonl" --model "replay:$CASS/perm.jsonl" go </dev/null
has "$T/req.jsonl" "SHELL-RAN" "the config's deny is not read"
has "$T/err" "skit: the config of $Q is not loaded (not a trusted folder); to trust it, run: skit trust $Q" \
	"with --root, one line about the config"
[ "$(grep -c "trust" "$T/err")" -eq 1 ] && reg_pass ||
	reg_fail "more than one line about trust"
run list
has "$T/err" "skit list: the project's skills are untrusted and the project's config (.agents/skit.json) is ignored: the agent leaves them out until you run: skit trust $Q" \
	"list says the config is ignored"
rm -rf "$Q/extra"
printf '{}\n' >"$Q/.mcp.json"
run list
has "$T/err" "skit list: the project's config (.agents/skit.json and .mcp.json) is ignored: the folder is untrusted; to trust it, run: skit trust $Q" \
	"list names both files"
# one line about the config (an empty list adds its own line, naming
# the roots searched)
[ "$(grep -c "is ignored" "$T/err")" -eq 1 ] && reg_pass ||
	reg_fail "list: more than one line about the config"
has "$T/err" "no skills found" "the empty list says so"
run doctor
has "$T/out" "Project: $Q [untrusted]: the agent leaves out its skills and ignores its config (.agents/skit.json and .mcp.json); to trust it: skit trust $Q" \
	"doctor says the config is ignored"
rm -f "$Q/.mcp.json"
skill "$Q/extra" extraskill "EXTRA-ROOT-DESC for extra tasks."
run trust "$Q"
expect_rc 0 "trust the folder"
rm -f "$T/req.jsonl"
run run --runs-dir "$W/runs" --request-log "$T/req.jsonl" \
	--model "replay:$CASS/final.jsonl" go </dev/null
has "$T/req.jsonl" "EXTRA-ROOT-DESC" "trusted: the config's root is read"
lacks "$T/err" "trust" "trusted: no line"
rm -f "$T/req.jsonl"
run run --yes --root "project=$W/skills" --runs-dir "$W/runs" --workdir "$W/work" \
	--request-log "$T/req.jsonl" --model "replay:$CASS/perm.jsonl" go </dev/null
has "$T/req.jsonl" "denied by config deny 'Bash(echo:*)'" "trusted: the config's deny applies"
run doctor
lacks "$T/out" "untrusted" "doctor: trusted"
rm -f "$CFG"
cd "$P" || exit 1

# Saved approvals: "always" on a terminal...
rm -f "$T/req.jsonl"
pty screen 'a\r
n\r' run --root "project=$W/skills" --runs-dir "$W/runs" --workdir "$W/work" \
	--request-log "$T/req.jsonl" --model "replay:$CASS/perm.jsonl" go
has "$T/screen" "[a]lways (runs of scr's scripts/ok.sh, saved until the skill changes)" \
	"always offers to save"
has "$T/req.jsonl" "OK-RUN" "always runs the script"
run approvals list
expect_rc 0 "approvals list"
has "$T/out" "scr scripts/ok.sh" "the approval is listed"
has "$T/out" " ok " "and holds"
run approvals list --json
json_ok "$T/out" "approvals list --json is JSON"
ID=$(json_get "$T/out" '[0]["id"]')
[ "$(json_get "$T/out" '[0]["current"]')" = True ] && reg_pass ||
	reg_fail "current: $(json_get "$T/out" '[0]["current"]')"

# ...holds without a terminal while the skill is unchanged...
rm -f "$T/req.jsonl"
run run --root "project=$W/skills" --runs-dir "$W/runs" --workdir "$W/work" \
	--request-log "$T/req.jsonl" --model "replay:$CASS/perm.jsonl" go </dev/null
has "$T/req.jsonl" "OK-RUN" "the saved approval runs the script"
lacks "$T/err" "run_skill_script for skill scr" "without asking"

# ...and one changed byte revokes it.
sed 's/OK-RUN/OK-RUX/' "$W/skills/scr/scripts/ok.sh" >"$T/ok.sh"
cat "$T/ok.sh" >"$W/skills/scr/scripts/ok.sh"
rm -f "$T/req.jsonl"
run run --root "project=$W/skills" --runs-dir "$W/runs" --workdir "$W/work" \
	--request-log "$T/req.jsonl" --model "replay:$CASS/perm.jsonl" go </dev/null
has "$T/err" "run_skill_script for skill scr: scripts/ok.sh" "a changed skill is asked about again"
lacks "$T/req.jsonl" "OK-RUX" "the changed script did not run"
run approvals list
has "$T/out" "changed" "list shows the approval no longer holds"
# a new file in the skill changes the set too
sed 's/OK-RUX/OK-RUN/' "$T/ok.sh" >"$W/skills/scr/scripts/ok.sh"
run approvals list
has "$T/out" " ok " "restored: holds again"
echo x >"$W/skills/scr/new.txt"
run approvals list
has "$T/out" "changed" "an added file changes the digest set"
rm -f "$W/skills/scr/new.txt"

run approvals revoke nope
expect_rc 1 "revoking an unknown id"
run approvals revoke "$ID"
expect_rc 0 "approvals revoke ID"
has "$T/out" "revoked 1 approval" "one revoked"
run approvals list --json
[ "$(tr -d ' \n' <"$T/out")" = "[]" ] && reg_pass || reg_fail "list after revoke: $(cat "$T/out")"
run approvals
expect_rc 2 "approvals needs a subcommand"
run approvals --help
expect_rc 0 "approvals --help"

# A user config linked from a dotfiles folder is read and written where it
# lives: its permissions apply to a run, and `skit trust` keeps the link.
mkdir -p "$W/dotfiles"
cp "$CFG" "$W/dotfiles/config.json"
rm -f "$CFG"
ln -s "$W/dotfiles/config.json" "$CFG"
run trust "$W"
expect_rc 0 "trust with a linked user config"
[ -L "$CFG" ] && reg_pass || reg_fail "skit trust replaced the link"
has "$W/dotfiles/config.json" "$W" "trust is written where the link leads"
rm -f "$T/req.jsonl"
run run --root "project=$P/.agents/skills" --runs-dir "$W/runs" \
	--request-log "$T/req.jsonl" --model "replay:$CASS/final.jsonl" go </dev/null
expect_rc 0 "a run with a linked user config"
lacks "$T/err" "not a regular file" "the linked config is read"
reg_done
