#!/bin/sh
# SPDX-License-Identifier: MIT
# eval_trust.sh - `skit eval` and folder trust (docs/evals.md, "Folder
# trust"): in an untrusted project, the project's skills, its config's
# roots, permissions and MCP servers stay off; the skills a case file
# names count as trusted (the user named the case file). Trusting the
# folder changes nothing: an eval reads only what its case files name.
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
run eval --runs-dir "$T/runs" evals/case.yaml
expect_rc 0 "the case passes in an untrusted folder"
has "$T/out" "cases: 1/1 passed" "its skills loaded, the project's did not"
lacks "$T/err" "trust" "no line about trust: trusting would change nothing"
# The cassette's checks are what the case rests on: one that fails them
# (the project's skill expected in the index) fails the case.
sed 's/"CASE-SKILL-DESC"\], "not_contains": \["PROJ-EVAL-DESC", /"CASE-SKILL-DESC", "PROJ-EVAL-DESC"], "not_contains": [/' \
	"$P/evals/case.jsonl" >"$T/strict.jsonl"
sed "s|cassette: case.jsonl|cassette: $T/strict.jsonl|" "$P/evals/case.yaml" \
	>"$P/evals/strict.yaml"
run eval --runs-dir "$T/runs" evals/strict.yaml
expect_rc 1 "a case expecting the project's skill fails"
has "$T/out" "PROJ-EVAL-DESC" "and says what the model was not sent"

run trust "$P"
expect_rc 0 "trust the folder"
rm -rf "$T/runs"
run eval --runs-dir "$T/runs" evals/case.yaml
expect_rc 0 "trusted: the same result"
has "$T/out" "cases: 1/1 passed" "an eval reads only what its case files name"
reg_done
