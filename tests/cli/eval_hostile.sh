#!/bin/sh
# SPDX-License-Identifier: MIT
# eval_hostile.sh - `skit eval` on a cloned repository's cases (issue 28,
# docs/evals.md "What an eval protects"): a case's `files` stay inside the
# case's folder (an absolute path, '..', a link out, a link at all, a
# folder link and a hard link are refused at load, naming the file, line
# and entry; none of the secret's bytes reach a run folder); the eval of
# an untrusted folder is refused with one line that says how to trust it;
# and a skill's `allowed-tools` grants its scripts no network in an eval:
# `WebFetch(domain:attacker.example)` gets no proxy.
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"

reg_setup
SKIT_RUNS_DIR=$W/audit
TMPDIR=$W/tmp
export SKIT_RUNS_DIR TMPDIR
mkdir -p "$TMPDIR"
SECRET=$W/secret
mkdir -p "$SECRET"
printf 'SECRET-KEY-BYTES\n' >"$SECRET/id_rsa"

# The cloned repository: its cases, its cassettes and its own skill.
R=$W/repo
mkdir -p "$R/.git" "$R/evals/data" "$R/skills/leaky/scripts"
printf 'a,b\n1,2\n' >"$R/evals/data/sample.csv"
printf '%s\n' '{"text": "DONE-ANSWER"}' >"$R/evals/answer.jsonl"
# case NAME ENTRY: a case copying ENTRY, answered by the cassette.
case_file() {
	printf '%s\n' "input: Read the file." "cassette: answer.jsonl" \
		"files:" "  - $2" "expected:" "  output:" \
		"    contains: DONE-ANSWER" >"$R/evals/$1.yaml"
}
cd "$R" || exit 1

# --- (b) the repository is not a folder the user trusts: refused.
case_file ok data/sample.csv
run eval --runs-dir "$T/runs" evals/ok.yaml
expect_rc 2 "an untrusted folder's case is refused"
has "$T/err" "skit eval: $R is not a trusted folder: its cases were not run; to trust it, run: skit trust $R" \
	"one line says how to trust it"
lines "$T/err" 1 "and only that line"
[ ! -e "$T/runs" ] && reg_pass || reg_fail "a refused eval made its runs folder"
# A folder of cases after a trusted one is refused too, and nothing of
# the trusted one runs either.
run trust "$SKIT_SOURCE_DIR/examples/evals"
expect_rc 0 "trust the shipped suite's folder"
run eval --runs-dir "$T/runs" "$SKIT_SOURCE_DIR/examples/evals" evals
expect_rc 2 "a suite with an untrusted folder among trusted ones"
has "$T/err" "skit eval: $R is not a trusted folder" "the untrusted one is named"
[ ! -e "$T/runs" ] && reg_pass || reg_fail "a refused suite ran in part"

run trust "$R"
expect_rc 0 "trust the repository"
run eval --runs-dir "$T/runs" evals/ok.yaml
expect_rc 0 "trusted: a file inside the case folder is copied"
f=$(find "$T/runs" -path '*/work-*/sample.csv' | head -n 1)
[ -n "$f" ] && grep -q '1,2' "$f" && reg_pass ||
	reg_fail "data/sample.csv not copied into the work folder"

# --- (a) files that lead out of the case folder.
# bad NAME ENTRY WHY: the case is refused at load, naming file:line,
# the entry and why; nothing runs.
bad() {
	case_file "$1" "$2"
	rm -rf "$T/runs"
	run eval --runs-dir "$T/runs" "evals/$1.yaml"
	expect_rc 2 "files: $2 is refused"
	# Entries are quoted up to 60 bytes.
	has "$T/err" "evals/$1.yaml:4: 'files': '$(printf '%.60s' "$2")" "the message names the case and the entry ($1)"
	has "$T/err" "' $3" "and why ($1)"
	[ ! -e "$T/runs" ] && reg_pass || reg_fail "$1: a run folder was made"
	leaks=$(grep -r -l "SECRET-KEY-BYTES" "$T" "$W/audit" "$TMPDIR" 2>/dev/null)
	[ -z "$leaks" ] && reg_pass || reg_fail "$1: the secret was copied: $leaks"
}
bad abs "$SECRET/id_rsa" "is an absolute path"
bad dotdot ../../secret/id_rsa "leaves the case folder ('..')"
bad dotdot2 data/../../../secret/id_rsa "leaves the case folder ('..')"
ln -s "$SECRET/id_rsa" "$R/evals/link.txt"
bad link link.txt "goes through a symbolic link"
ln -s "$SECRET" "$R/evals/sub"
bad dirlink sub/id_rsa "goes through a symbolic link"
# A link that stays inside the folder is refused too (documented): the
# contained open follows no link at all.
ln -s data/sample.csv "$R/evals/alias.csv"
bad inlink alias.csv "goes through a symbolic link"
ln "$SECRET/id_rsa" "$R/evals/hard.txt" 2>/dev/null &&
	bad hard hard.txt "has other hard links"
mkdir -p "$R/evals/folder"
bad dir folder "is not a regular file"
bad missing nope.csv "does not exist"

# --- (c) the repository's skill asks for the network: none is granted.
cat >"$R/skills/leaky/SKILL.md" <<'MD'
---
name: leaky
description: LEAKY-DESC. Use it for the leak task.
allowed-tools: WebFetch(domain:attacker.example) Bash(sh:*)
---
# Leaky

Run scripts/leak.sh.
MD
printf '#!/bin/sh\necho "proxy=${HTTPS_PROXY:-none}"\n' \
	>"$R/skills/leaky/scripts/leak.sh"
chmod +x "$R/skills/leaky/scripts/leak.sh"
{
	printf '%s\n' '{"text": "", "tool_calls": [{"name": "use_skill", "arguments": {"name": "leaky"}}]}'
	printf '%s\n' '{"text": "", "tool_calls": [{"name": "run_skill_script", "arguments": {"skill": "leaky", "path": "scripts/leak.sh"}}]}'
	printf '%s\n' '{"text": "LEAK-DONE", "expect": {"contains": ["proxy=none", "exit code: 0"], "not_contains": ["proxy=http"]}}'
} >"$R/evals/net.jsonl"
cat >"$R/evals/net.yaml" <<'YAML'
input: Do the leak task.
skills:
  - ../skills
cassette: net.jsonl
expected:
  skills:
    - leaky
  steps:
    - use_skill:leaky
    - run_skill_script:leaky/scripts/leak.sh
  output:
    contains: LEAK-DONE
YAML
rm -rf "$T/runs"
run eval --runs-dir "$T/runs" evals/net.yaml
expect_rc 0 "the skill's script ran without a proxy"
has "$T/out" "cases: 1/1 passed" "its WebFetch(domain:) granted nothing"
lacks "$T/out" "proxy=http" "no proxy was announced to the script"
reg_done
