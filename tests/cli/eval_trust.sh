#!/bin/sh
# SPDX-License-Identifier: MIT
# eval_trust.sh - `skit eval` and folder trust (docs/evals.md, "Folder
# trust"): the cases of a folder the user does not trust are refused
# (one line says how to trust it; a pseudo-terminal asks, "n" refuses,
# "y" records the trust and runs them). Once trusted, an eval still reads
# only what its case files name: the project's skills, its config's
# roots, permissions and MCP servers stay off.
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"

reg_setup
SKIT_RUNS_DIR=$W/audit
TMPDIR=$W/tmp
export SKIT_RUNS_DIR TMPDIR
mkdir -p "$TMPDIR"
P=$W/proj
mkdir -p "$P/.git" "$P/.agents" "$P/evals"
skill "$P/.agents/skills" projskill "PROJ-EVAL-DESC for project tasks."
skill "$P/cfgroot" cfgskill "CFG-ROOT-DESC for config tasks."
skill "$P/skills" caseskill "CASE-SKILL-DESC for case tasks."
printf '{"roots": {"project": ["cfgroot"]}, "permissions": {"deny": ["Bash(echo:*)"]}}\n' \
	>"$P/.agents/skit.json"
printf '{"mcpServers": {"proj": {"command": "false"}}}\n' >"$P/.mcp.json"
# The cassette checks what the model is sent: the case's skill, not the
# project's; the shell call's output, not a refusal by the config's deny.
{
	printf '%s\n' '{"text": "", "tool_calls": [{"name": "use_skill", "arguments": {"name": "caseskill"}}], "expect": {"contains": ["CASE-SKILL-DESC"], "not_contains": ["PROJ-EVAL-DESC", "CFG-ROOT-DESC", "mcp__proj"]}}'
	printf '%s\n' '{"text": "", "tool_calls": [{"name": "shell", "arguments": {"command": "echo SHELL-'"''"'RAN"}}]}'
	printf '%s\n' '{"text": "DONE-ANSWER", "expect": {"contains": ["SHELL-RAN"], "not_contains": ["denied by config"]}}'
} >"$P/evals/case.jsonl"
cat >"$P/evals/case.yaml" <<'YAML'
description: The case's own skills, in an untrusted folder
input: Do the case task.
skills:
  - ../skills
cassette: case.jsonl
expected:
  skills:
    - caseskill
  not_skills:
    - projskill
    - cfgskill
  steps:
    - use_skill:caseskill
    - shell
  output:
    contains: DONE-ANSWER
YAML
cd "$P" || exit 1

run list
has "$T/err" "skit trust $P" "the folder is untrusted"
run eval --runs-dir "$T/runs" evals/case.yaml </dev/null
expect_rc 2 "an untrusted folder's cases are refused"
has "$T/err" "skit eval: $P is not a trusted folder: its cases were not run; to trust it, run: skit trust $P" \
	"one line names the project and says how to trust it"
lines "$T/err" 1 "one line only"
[ ! -e "$T/runs" ] && reg_pass || reg_fail "a refused eval made its runs folder"
[ ! -e "$XDG_CONFIG_HOME/skit/config.json" ] && reg_pass ||
	reg_fail "the config was written without asking"

# On a terminal: asked. "n" refuses as above; "y" trusts and runs.
if python3 -c 'import pty' 2>/dev/null; then
	# pty OUT KEYS ARGS...: skit ARGS on a pseudo-terminal, typing KEYS;
	# the screen without CR and escapes in $T/OUT.
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
	pty no 'n\r' eval --runs-dir "$T/runs" evals/case.yaml
	expect_rc 2 "on a terminal, trust declined"
	has "$T/no" "skit eval: $P is not a trusted folder" "the terminal asks"
	has "$T/no" "Trust this folder? [y]es, [n]o:" "the question"
	has "$T/no" "to trust it, run: skit trust $P" "n says how to trust it"
	[ ! -e "$T/runs" ] && reg_pass || reg_fail "declined: nothing ran"
	pty yes 'y\r' eval --runs-dir "$T/runs" evals/case.yaml
	expect_rc 0 "on a terminal, trusted"
	has "$T/yes" "skit eval: trusted $P" "yes records the trust"
	has "$T/yes" "cases: 1/1 passed" "and the case runs"
	has "$XDG_CONFIG_HOME/skit/config.json" "\"$P\"" "the user config lists the project"
	run trust --remove "$P"
	expect_rc 0 "untrust it again"
else
	echo "eval_trust: python3 with pty not found; the terminal part is skipped"
fi

# Trusted: the case's own skills run; the project's skills and config
# stay off all the same.
run trust "$P"
expect_rc 0 "trust the folder"
rm -rf "$T/runs"
run eval --runs-dir "$T/runs" evals/case.yaml
expect_rc 0 "the case passes in a trusted folder"
has "$T/out" "cases: 1/1 passed" "its skills loaded, the project's did not"
lacks "$T/err" "trust" "no line about trust"
# The cassette's checks are what the case rests on: one that fails them
# (the project's skill expected in the index) fails the case.
sed 's/"CASE-SKILL-DESC"\], "not_contains": \["PROJ-EVAL-DESC", /"CASE-SKILL-DESC", "PROJ-EVAL-DESC"], "not_contains": [/' \
	"$P/evals/case.jsonl" >"$T/strict.jsonl"
sed "s|cassette: case.jsonl|cassette: $T/strict.jsonl|" "$P/evals/case.yaml" \
	>"$P/evals/strict.yaml"
run eval --runs-dir "$T/runs" evals/strict.yaml
expect_rc 1 "a case expecting the project's skill fails"
has "$T/out" "PROJ-EVAL-DESC" "and says what the model was not sent"
reg_done
